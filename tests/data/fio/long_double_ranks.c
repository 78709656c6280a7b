#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(int c,char**v){ double q[]={1,5,10,20,30,40,50,60,70,80,90,95,99,99.5,99.9,99.95,99.99,0.01,33.333,12.5,99.999};
 unsigned long long ns[]={1,3,7,10,100,999,1000,1001,2000,3000,4000,5000,7000,10000,20000,100000,123457,1000000,10000000,3000000000ULL};
 for(int i=0;i<21;i++)for(int j=0;j<20;j++){ long double r=((long double)q[i]/100.0)*ns[j]; unsigned long long s=(unsigned long long)ceill(r); if(s<1)s=1; printf("%.17g %llu %llu\n",q[i],ns[j],s);} }
