//! One house style for many drives (issue 25, items 4 and 5), on the frozen runs in tests/fixtures/report:
//! each drive keeps one colour in every chart and table of a report; charts come as PNG too, drawn from the
//! same SVG, three times its size, with their text.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture_results(run: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/report")
        .join(run)
        .join("results.json")
        .display()
        .to_string()
}

/// `wkrun report` of the fixture runs `runs` with `args` into `rep` in a fresh temporary folder; asserts
/// success. Returns the temporary folder (keep it alive), the report folder and stdout.
fn report(runs: &[&str], args: &[&str]) -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempdir();
    let out = tmp.path().join("rep");
    let mut all = vec!["report".to_string()];
    all.extend(runs.iter().map(|r| fixture_results(r)));
    all.extend(["-o".to_string(), out.display().to_string()]);
    all.extend(args.iter().map(|a| a.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let (code, stdout, err) = code_out_err(&wkrun(tmp.path(), &all));
    assert_eq!(code, 0, "wkrun {all:?}: {err}");
    (tmp, out, stdout)
}

/// The report's files with extension `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("report folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// A PNG's width, height and RGBA pixels.
fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).expect("png");
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut r = dec
        .read_info()
        .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
    let mut buf = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut buf).expect("frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Issue 25 item 5: `--png` writes each chart as a PNG beside its SVG, drawn from it at three times its
/// size, its text drawn (the title's band is not blank), the drive's colour in it; the page links each.
#[test]
fn png_export_draws_every_chart_at_three_times_its_size_with_its_text() {
    let (_tmp, out, stdout) = report(&["run-a"], &["--png"]);
    assert!(
        stdout.ends_with("(63 plots, each also as PNG)\n"),
        "{stdout}"
    );
    let svgs = files(&out, "svg");
    assert_eq!(svgs.len(), 63);
    assert_eq!(files(&out, "png").len(), 63);
    let html = std::fs::read_to_string(out.join("index.html")).expect("page");
    for svg in &svgs {
        let png = svg.with_extension("png");
        let head = &std::fs::read(&png).expect("the PNG beside the SVG")[..8];
        assert_eq!(head, b"\x89PNG\r\n\x1a\n", "{}", png.display());
        let text = std::fs::read_to_string(svg).expect("svg");
        let doc = roxmltree::Document::parse(&text).expect("XML");
        let size = |a: &str| -> u32 { doc.root_element().attribute(a).expect(a).parse().expect(a) };
        let (w, h, rgba) = decode_png(&png);
        assert_eq!(
            (w, h),
            (3 * size("width"), 3 * size("height")),
            "{}",
            png.display()
        );
        assert_eq!(w, 2880);
        // The title's band (the top 34 px of the chart, ×3) has dark text pixels on white.
        let band = &rgba[..(w * 34 * 3 * 4) as usize];
        let dark = band
            .chunks(4)
            .filter(|p| p[0] < 128 && p[1] < 128 && p[2] < 128)
            .count();
        assert!(
            dark > 2000,
            "{}: {dark} dark pixels in the title",
            png.display()
        );
        assert_eq!(&rgba[..4], &[255, 255, 255, 255], "white, opaque");
        let name = png.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            html.contains(&format!("<a href=\"{name}\">{name}</a>")),
            "{name} linked"
        );
    }
    // The drive's points in its colour (#0072b2) on the IOPS plot.
    let (_, _, rgba) = decode_png(&out.join("03-rw-iops-log-read.png"));
    assert!(rgba.chunks(4).any(|p| p[..3] == [0, 114, 178]));
    // Without --png, no PNG.
    let (_tmp, plain, stdout) = report(&["run-a"], &[]);
    assert!(stdout.ends_with("(63 plots)\n"), "{stdout}");
    assert!(files(&plain, "png").is_empty());
}

/// The drives' colours of an SVG: per legend row of a drive (`data-label`), its first swatch's fill.
fn legend_colours(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).expect("svg");
    let doc = roxmltree::Document::parse(&text).expect("XML");
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("legend-entry"))
        .filter_map(|n| {
            let label = n.attribute("data-label")?.to_string();
            let swatch = n
                .descendants()
                .find(|s| s.has_tag_name("rect") || s.has_tag_name("line"))?;
            // An outlined swatch (hollow points, writes' pale bars) is in the drive's colour by its outline.
            let c = swatch
                .attribute("stroke")
                .or(swatch.attribute("fill"))
                .expect("a colour");
            Some((label, c.to_lowercase()))
        })
        .collect()
}

/// Issue 25 item 4: a drive keeps its colour in every chart of a report, in the order the runs were
/// named, and the page's legend and tables use the same.
#[test]
fn a_drive_keeps_its_colour_across_every_chart_of_a_report() {
    for (order, want) in [
        (
            ["run-a", "run-b"],
            [("run-a", "#0072b2"), ("run-b", "#d55e00")],
        ),
        (
            ["run-b", "run-a"],
            [("run-b", "#0072b2"), ("run-a", "#d55e00")],
        ),
    ] {
        let (_tmp, out, _) = report(&order, &[]);
        let want: BTreeMap<String, String> = want
            .iter()
            .map(|(l, c)| (l.to_string(), c.to_string()))
            .collect();
        let mut charts = 0;
        for svg in files(&out, "svg") {
            let got = legend_colours(&svg);
            assert!(!got.is_empty(), "{}: no drive in the legend", svg.display());
            for (label, colour) in &got {
                assert_eq!(
                    Some(colour),
                    want.get(label),
                    "{label} in {}",
                    svg.display()
                );
            }
            charts += 1;
        }
        // run-a's 63 charts, and the battery of the workloads both runs have.
        assert_eq!(charts, 64);
        // The IOPS plot's points: each drive's circles in its colour, and only those.
        let text = std::fs::read_to_string(out.join("03-rw-iops-log-read.svg")).expect("svg");
        let doc = roxmltree::Document::parse(&text).expect("XML");
        let fills: std::collections::BTreeSet<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle"))
            .filter_map(|n| n.attribute("fill").map(str::to_lowercase))
            .filter(|f| f != "none")
            .collect();
        let colours: std::collections::BTreeSet<String> = want.values().cloned().collect();
        assert_eq!(fills, colours);
        // The page: one legend at the top, each drive's swatch in its colour.
        let html = std::fs::read_to_string(out.join("index.html")).expect("page");
        let legend = html
            .find("<ul class=\"drives\"")
            .expect("the page's legend");
        assert!(legend < html.find("<section id=\"headline\">").unwrap_or(usize::MAX));
        for (label, colour) in &want {
            let item = format!(
                "<li><span class=\"swatch\" style=\"background:{colour}\"></span>{label}</li>"
            );
            assert!(html[legend..].contains(&item), "{item}");
        }
    }
}
