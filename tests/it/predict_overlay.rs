//! `wkrun report` of a measured run and its prediction (`wkrun sim predict`, issue 30 item 2): the
//! prediction is drawn dashed over the measurement in the measured run's colour a third darker, the
//! measurement solid; the legend and the page's run list say which run is a prediction, on which drive and
//! of which measurement. Point counts are recounted from the series CSVs.

use crate::common::*;
use roxmltree::{Document, Node};
use std::path::Path;

/// Purge, fill, then 20 s of 4 KiB random writes at QD32.
const SPEC: &str = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"20s\"\n";
const MEASURED: &str = "sim:capacity=256MiB,op=20%";
const FITTED: &str = "sim:capacity=256MiB,op=18%";
/// The first run's colour (Okabe–Ito blue, 0 114 178) and the same a third of the way to black.
const BLUE: &str = "#0072b2";
const DARK_BLUE: &str = "#004c77";

/// The whole (not partial) intervals of phase `wsat` in a results folder's series CSV.
fn whole_intervals(dir: &Path) -> usize {
    csv_rows(&dir.join("02-wsat.csv"))
        .iter()
        .filter(|r| r["partial"] == "0")
        .count()
}

fn elements<'a>(doc: &'a Document<'a>, tag: &str) -> Vec<Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == tag)
        .collect()
}

fn stroke(n: &Node) -> String {
    n.attribute("stroke").unwrap_or("").to_ascii_lowercase()
}

#[test]
fn report_draws_a_prediction_dashed_over_its_measurement() {
    let dir = tempdir();
    write_file(dir.path(), "s.toml", &spec_text("ov", SPEC));
    let run = |args: &[&str]| {
        let (code, _, err) = code_out_err(&wkrun(dir.path(), args));
        assert_eq!(code, 0, "wkrun {args:?}: {err}");
    };
    run(&["s.toml", "--target", MEASURED, "-o", "m", "-q"]);
    run(&[
        "sim", "predict", "m", "s.toml", "--fitted", FITTED, "-o", "p",
    ]);
    run(&["report", "m", "p", "-o", "rep"]);
    let (m_rows, p_rows) = (
        whole_intervals(&dir.path().join("m")),
        whole_intervals(&dir.path().join("p")),
    );
    assert_eq!((m_rows, p_rows), (20, 20));

    // IOPS: the measurement one filled dot per interval, the prediction one dashed line through its own.
    let text =
        std::fs::read_to_string(dir.path().join("rep/02-wsat-iops-linear-write.svg")).unwrap();
    let doc = Document::parse(&text).expect("svg is XML");
    let circles = elements(&doc, "circle");
    let dots = |c: &str| {
        circles
            .iter()
            .filter(|n| n.attribute("fill").unwrap_or("").eq_ignore_ascii_case(c))
            .count()
    };
    assert_eq!((dots(BLUE), dots(DARK_BLUE)), (m_rows, 0));
    let lines = elements(&doc, "polyline");
    let dashed: Vec<_> = lines
        .iter()
        .filter(|n| n.attribute("stroke-dasharray").is_some())
        .collect();
    assert_eq!(dashed.len(), 1, "{text}");
    assert_eq!(stroke(dashed[0]), DARK_BLUE);
    assert_eq!(dashed[0].attribute("stroke-dasharray"), Some("7 4"));
    let points = dashed[0]
        .attribute("points")
        .unwrap()
        .split_whitespace()
        .count();
    assert_eq!(points, p_rows);

    // Bandwidth: both runs are lines; the measurement's solid, the prediction's dashed.
    let text = std::fs::read_to_string(dir.path().join("rep/02-wsat-bandwidth.svg")).unwrap();
    let doc = Document::parse(&text).expect("svg is XML");
    let lines = elements(&doc, "polyline");
    let by = |c: &str| lines.iter().filter(|n| stroke(n) == c).collect::<Vec<_>>();
    let (solid, dash) = (by(BLUE), by(DARK_BLUE));
    assert_eq!((solid.len(), dash.len()), (1, 1), "{text}");
    assert_eq!(solid[0].attribute("stroke-dasharray"), None);
    assert_eq!(dash[0].attribute("stroke-dasharray"), Some("7 4"));

    // Latency: the measurement's mean circles and max triangles; the prediction's mean and max two dashed
    // lines, each through one point per interval.
    let lat = std::fs::read_to_string(dir.path().join("rep/02-wsat-latency-write.svg")).unwrap();
    let lat_doc = Document::parse(&lat).expect("svg is XML");
    let blue_circles = elements(&lat_doc, "circle")
        .iter()
        .filter(|n| n.attribute("fill").unwrap_or("").eq_ignore_ascii_case(BLUE))
        .count();
    assert_eq!(blue_circles, m_rows, "{lat}");
    let lat_lines = elements(&lat_doc, "polyline");
    let lat_dashed: Vec<_> = lat_lines
        .iter()
        .filter(|n| n.attribute("stroke-dasharray").is_some())
        .collect();
    assert_eq!(lat_dashed.len(), 2, "{lat}");
    for d in &lat_dashed {
        assert_eq!(stroke(d), DARK_BLUE);
        let points = d.attribute("points").unwrap().split_whitespace().count();
        assert_eq!(points, p_rows);
    }
    assert!(lat.contains("mean (dashed, lower)"), "{lat}");

    // The legend: the prediction's row names the fitted drive and the measured results, its swatch dashed.
    let measured_file = dir.path().join("m").join("results.json");
    let want = format!("predicted ({FITTED}) from m/results.json");
    assert!(measured_file.is_file());
    let rows: Vec<_> = elements(&doc, "g")
        .into_iter()
        .filter(|g| g.attribute("class") == Some("legend-entry"))
        .collect();
    assert_eq!(rows.len(), 2);
    let title = |g: &Node| {
        g.descendants()
            .find(|n| n.has_tag_name("title"))
            .and_then(|n| n.text())
            .unwrap_or("")
            .to_string()
    };
    let dashed_swatches = |g: &Node| {
        g.descendants()
            .filter(|n| n.has_tag_name("line") && n.attribute("stroke-dasharray").is_some())
            .count()
    };
    assert!(
        !title(&rows[0]).contains("predicted"),
        "{}",
        title(&rows[0])
    );
    assert_eq!(dashed_swatches(&rows[0]), 0);
    assert!(title(&rows[1]).starts_with(&want), "{}", title(&rows[1]));
    assert_eq!(dashed_swatches(&rows[1]), 1);

    // The page's run list: the second run is a prediction of the first.
    let html = std::fs::read_to_string(dir.path().join("rep/index.html")).unwrap();
    let note = format!(
        "<li class=\"prediction\"><span class=\"swatch dashed\" style=\"color:{DARK_BLUE}\"></span>predicted: {FITTED},dies=1 (prediction on {FITTED} of run 1 ({MEASURED},dies=1); dashed in the charts)</li>"
    );
    assert!(html.contains(&note), "{html}");
    assert_eq!(html.matches("class=\"prediction\"").count(), 1);
}
