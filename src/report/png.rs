//! PNG copies of the report's charts (`wkrun report --png`): each chart's SVG, the same text the SVG file
//! holds, rasterised by resvg at [`SCALE`] times its size (a 960 px wide chart becomes 2880 px: 9.6 inches
//! at 300 dpi, the resolution the file records), on white. No browser and no system font is needed: the
//! text is drawn with the one font wkrun carries ([`crate::report::chart::canvas::FONT_BYTES`], DejaVu
//! Sans), which also stands for the SVG's generic `sans-serif`, so a PNG looks the same on every machine.

use crate::report::chart::canvas::{FONT_BYTES, FONT_NAME};
use resvg::{tiny_skia, usvg};

/// How many PNG pixels stand for one SVG pixel.
pub const SCALE: u32 = 3;
/// The resolution a PNG records (its `pHYs` chunk), dots per inch: [`SCALE`] times the 96 px per inch of
/// CSS, rounded to the printer's 300.
pub const DPI: u32 = 300;

/// Why a chart could not be drawn as PNG.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the PNG: {0}")]
pub struct PngError(pub String);

/// What draws SVG charts as PNG: resvg's options with the embedded font.
pub struct Rasteriser {
    opts: usvg::Options<'static>,
}

impl Default for Rasteriser {
    fn default() -> Self {
        Rasteriser::new()
    }
}

impl Rasteriser {
    /// A rasteriser that knows one font, DejaVu Sans, also as `sans-serif`.
    pub fn new() -> Rasteriser {
        let mut opts = usvg::Options {
            font_family: FONT_NAME.to_string(),
            ..usvg::Options::default()
        };
        let db = opts.fontdb_mut();
        db.load_font_data(FONT_BYTES.to_vec());
        db.set_sans_serif_family(FONT_NAME);
        Rasteriser { opts }
    }

    /// The PNG of `svg`: [`SCALE`] times its size, RGBA (opaque), [`DPI`] recorded.
    ///
    /// # Errors
    /// [`PngError`] when the SVG cannot be read or the image is too large.
    pub fn png(&self, svg: &str) -> Result<Vec<u8>, PngError> {
        let tree = usvg::Tree::from_str(svg, &self.opts).map_err(|e| PngError(e.to_string()))?;
        let size = tree
            .size()
            .to_int_size()
            .scale_by(SCALE as f32)
            .ok_or_else(|| PngError("the chart has no size".into()))?;
        let mut pixmap = white(size)?;
        // Drawing and encoding hold about as much again as the pixels (the encoder's copy of the rows,
        // resvg's layers): checked now, with the pixels held, so that a limit they would pass ends in this
        // error, not an abort (attack 13 F2: 1 run in 20 at 126-128 MiB aborted on a 12,143,560 B
        // allocation, the size of the pixels).
        let again = pixmap.data().len() as u64 + (4 << 20);
        if !crate::sys::limits::address_space_free(again) {
            return Err(PngError(format!(
                "drawing and encoding its {} × {} px need about {again} B more of address space than the address-space limit (RLIMIT_AS, ulimit -v) leaves",
                size.width(),
                size.height()
            )));
        }
        let s = SCALE as f32;
        resvg::render(
            &tree,
            tiny_skia::Transform::from_scale(s, s),
            &mut pixmap.as_mut(),
        );
        // Opaque throughout (drawn on white), so the premultiplied colours are the colours.
        encode(pixmap.data(), size.width(), size.height())
    }
}

/// A white pixmap of `size`, its pixels allocated fallibly: an allocation that fails (an address-space
/// limit) is an error naming it, not an abort.
fn white(size: tiny_skia::IntSize) -> Result<tiny_skia::Pixmap, PngError> {
    let (w, h) = (size.width(), size.height());
    let too_large = || PngError(format!("{w} × {h} px is too large"));
    let len = usize::try_from(u64::from(w) * u64::from(h) * 4).map_err(|_| too_large())?;
    let mut data = Vec::new();
    data.try_reserve_exact(len).map_err(|_| {
        PngError(format!(
            "the {len} B of its {w} × {h} px could not be allocated (the address-space limit, RLIMIT_AS, or the machine's memory)"
        ))
    })?;
    // Opaque white, premultiplied or not: copied 4 KiB at a time (`resize` writes a byte at a time in a
    // dev build, whose debug assertions keep it from becoming a memset: a fifth of a report's PNG time).
    const WHITE: [u8; 4096] = [255; 4096];
    while data.len() < len {
        let n = (len - data.len()).min(WHITE.len());
        data.extend_from_slice(&WHITE[..n]);
    }
    tiny_skia::Pixmap::from_vec(data, size).ok_or_else(too_large)
}

/// `rgba` (8-bit RGBA rows, opaque) as a PNG of `w` × `h` px at [`DPI`].
fn encode(rgba: &[u8], w: u32, h: u32) -> Result<Vec<u8>, PngError> {
    let err = |e: png::EncodingError| PngError(e.to_string());
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        // Pixels per metre: DPI / 0.0254.
        let ppm = (f64::from(DPI) / 0.0254).round() as u32;
        enc.set_pixel_dims(Some(png::PixelDimensions {
            xppu: ppm,
            yppu: ppm,
            unit: png::Unit::Meter,
        }));
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(rgba).map_err(err)?;
        w.finish().map_err(err)?;
    }
    Ok(out)
}

/// The PNG file's name beside the SVG `file`: `.svg` replaced by `.png`.
pub fn png_name(file: &str) -> String {
    match file.strip_suffix(".svg") {
        Some(stem) => format!("{stem}.png"),
        None => format!("{file}.png"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes a PNG: width, height, pixels per metre and RGB rows (checking it is opaque).
    fn decode(png: &[u8]) -> (u32, u32, Option<u32>, Vec<u8>) {
        let dec = png::Decoder::new(std::io::Cursor::new(png));
        let mut r = dec.read_info().expect("a PNG");
        let ppm = r.info().pixel_dims.map(|d| d.xppu);
        let mut buf = vec![0; r.output_buffer_size().expect("size")];
        let info = r.next_frame(&mut buf).expect("frame");
        assert_eq!(info.color_type, png::ColorType::Rgba);
        buf.truncate(info.buffer_size());
        assert!(buf.chunks(4).all(|p| p[3] == 255), "opaque");
        let rgb = buf.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        (info.width, info.height, ppm, rgb)
    }

    #[test]
    fn text_is_drawn_with_the_embedded_font_at_three_times_the_size() {
        let svg = "<svg width=\"100\" height=\"40\" viewBox=\"0 0 100 40\" xmlns=\"http://www.w3.org/2000/svg\">\
<text x=\"4\" y=\"28\" font-family=\"sans-serif\" font-size=\"24\" fill=\"#000000\">Mµ</text></svg>";
        let r = Rasteriser::new();
        let (w, h, ppm, rgb) = decode(&r.png(svg).expect("draws"));
        assert_eq!((w, h), (300, 120));
        assert_eq!(ppm, Some(11_811), "300 dpi");
        // The text is there: dark pixels, and white around them.
        let dark = rgb.chunks(3).filter(|p| p[0] < 100).count();
        assert!(dark > 500, "{dark} dark pixels");
        assert_eq!(&rgb[..3], &[255, 255, 255]);
        // Without text: all white.
        let blank = svg.replace("Mµ", "");
        let (_, _, _, rgb) = decode(&r.png(&blank).expect("draws"));
        assert!(rgb.iter().all(|v| *v == 255));
        assert!(r.png("not svg").is_err());
        assert_eq!(png_name("01-w-iops-log-read.svg"), "01-w-iops-log-read.png");
    }
}
