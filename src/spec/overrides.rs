//! `--set KEY=VALUE`: replace a key in `[defaults]` and in every phase that sets it, after sweeps and matrices
//! are expanded; when nothing sets it, set it in `[defaults]` (`--set engine=libaio`) (e.g. `--set duration=10s` for a one-minute trial of an hours-long spec). The value is TOML
//! (`10`, `"10s"`); a bare word that is not TOML is taken as a string (`10s`).

use super::{Defaults, LoadedSpec, PhaseSpec};
use toml::Value;

/// Parses `KEY=VALUE`.
///
/// # Errors
/// A message when there is no `=` or the key is empty.
pub fn parse(arg: &str) -> Result<(String, Value), String> {
    let (k, v) = arg
        .split_once('=')
        .ok_or_else(|| format!("--set {arg}: expected KEY=VALUE, e.g. --set duration=10s"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("--set {arg}: the key is empty"));
    }
    let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(v.trim().to_string()));
    if value.is_array() {
        return Err(format!(
            "--set {arg}: a list would expand phases after their names were made; --set takes one value"
        ));
    }
    Ok((k.to_string(), value))
}

fn replace<T: serde::Serialize + serde::de::DeserializeOwned>(
    item: &T,
    key: &str,
    value: &Value,
    insert: bool,
) -> Result<Option<T>, String> {
    let mut table = Value::try_from(item).map_err(|e| e.to_string())?;
    let Some(t) = table.as_table_mut() else {
        return Ok(None);
    };
    if !insert && !t.contains_key(key) {
        return Ok(None);
    }
    t.insert(key.to_string(), value.clone());
    T::deserialize(table)
        .map(Some)
        .map_err(|e| e.message().to_string())
}

impl LoadedSpec {
    /// Applies `--set` overrides in order, then checks the rules again.
    ///
    /// # Errors
    /// A message naming the override when no phase or default sets the key, the value does not fit the key,
    /// or the result breaks a rule.
    pub fn apply_overrides(&mut self, sets: &[(String, Value)]) -> Result<(), String> {
        for (key, value) in sets {
            if super::keys::find(key).is_some_and(|k| !k.settable) {
                return Err(format!("--set {key}: `{key}` cannot be changed by --set"));
            }
            // Names and labels of expanded phases say which value made them: a --set of that key would
            // make them lie.
            let short = super::expand::label_of(key);
            if let Some(p) = self
                .phases
                .iter()
                .find(|p| p.labels.iter().any(|l| l.key == short))
            {
                return Err(format!(
                    "--set {key}: `{key}` is varied by a matrix or sweep of this spec (phase \"{}\"); edit the spec instead",
                    p.name
                ));
            }
            let mut hits = 0;
            let defaults = match &self.file.defaults {
                Some(d) => replace::<Defaults>(d, key, value, false)
                    .map_err(|e| format!("--set {key}: {e}"))?,
                None => None,
            };
            if let Some(new) = defaults {
                self.file.defaults = Some(new);
                hits += 1;
            }
            for p in &mut self.phases {
                if let Some(mut new) = replace::<PhaseSpec>(p, key, value, false)
                    .map_err(|e| format!("--set {key}: {e}"))?
                {
                    new.origin = p.origin;
                    new.labels = std::mem::take(&mut p.labels);
                    *p = new;
                    hits += 1;
                }
            }
            if hits == 0 {
                // Nothing sets the key: set it in [defaults], which every phase that accepts it inherits.
                let d = self.file.defaults.clone().unwrap_or_default();
                match replace::<Defaults>(&d, key, value, true) {
                    Ok(Some(new)) => self.file.defaults = Some(new),
                    _ => {
                        // A misspelled key: suggest the closest key --set can change.
                        let mut known: Vec<&str> = super::keys::KEYS
                            .iter()
                            .filter(|k| k.settable)
                            .map(|k| k.name)
                            .collect();
                        known.sort_unstable();
                        let hint = match super::load::nearest(key, &known) {
                            Some(k) if k != key => format!(" (did you mean `{k}`?)"),
                            _ => String::new(),
                        };
                        return Err(format!(
                            "--set {key}: no phase of this spec sets `{key}`, and [defaults] cannot hold it{hint}"
                        ));
                    }
                }
            }
            self.overrides.push(format!("{key}={value}"));
        }
        super::rules::check(&self.file, &self.phases)
            .map_err(|r| format!("after --set: {}: {}", r.path, r.message))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use toml::Value;

    #[test]
    fn values() {
        assert_eq!(
            parse("duration=10s").unwrap(),
            ("duration".into(), Value::String("10s".into()))
        );
        assert_eq!(
            parse("queue_depth=4").unwrap(),
            ("queue_depth".into(), Value::Integer(4))
        );
        assert_eq!(
            parse("data=\"zeros\"").unwrap(),
            ("data".into(), Value::String("zeros".into()))
        );
        assert!(parse("duration").is_err());
    }
}
