//! `siftdds-bench-chart RATIOS.tsv OUT.png [FONT.ttf]`: a bar chart of siftdds/Cyclone ratios,
//! one bar per figure, for `scripts/bench`.
//!
//! Must not: measure anything or change a number; it draws what the TSV says. Input lines:
//! `figure<TAB>ratio<TAB>higher_is_better(1|0)`; `#` lines are comments. A bar is green when
//! siftdds does better than Cyclone on that figure, red otherwise. Text needs a TrueType font
//! (DejaVu Sans by default); without one the chart is drawn without labels.

use std::error::Error;

use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

/// Where Debian's fonts-dejavu-core puts DejaVu Sans.
const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

struct Bar {
    figure: String,
    ratio: f64,
    higher_is_better: bool,
}

fn parse(text: &str) -> Result<Vec<Bar>, String> {
    let mut bars = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [figure, ratio, better] = fields.as_slice() else {
            return Err(format!("line {}: expected 3 tab-separated fields", n + 1));
        };
        let ratio: f64 = ratio.parse().map_err(|e| format!("line {}: ratio: {e}", n + 1))?;
        bars.push(Bar { figure: figure.to_string(), ratio, higher_is_better: *better == "1" });
    }
    Ok(bars)
}

fn draw(bars: &[Bar], out: &str, labels: bool) -> Result<(), Box<dyn Error>> {
    let n = bars.len().max(1);
    let height = u32::try_from(n).unwrap_or(40).saturating_mul(36).saturating_add(140);
    let root = BitMapBackend::new(out, (1100, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let right = bars.iter().map(|b| b.ratio).fold(1.0f64, f64::max) * 1.2;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if labels {
        builder
            .caption("siftdds / Cyclone DDS (ddsperf), median ratio per figure; green: siftdds better", ("sans-serif", 22))
            .x_label_area_size(40);
    }
    // Figures top to bottom: bar i spans y in [n-1-i, n-i).
    let mut chart = builder.build_cartesian_2d(0f64..right, 0f64..n as f64)?;
    if labels {
        chart.configure_mesh().disable_y_mesh().disable_y_axis().x_desc("siftdds / Cyclone").draw()?;
    }
    let y = |i: usize| (n - 1 - i) as f64;
    chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
        let better = if b.higher_is_better { b.ratio > 1.0 } else { b.ratio < 1.0 };
        let color = if better { RGBColor(120, 200, 130) } else { RGBColor(235, 130, 120) };
        Rectangle::new([(0.0, y(i) + 0.12), (b.ratio, y(i) + 0.88)], color.filled())
    }))?;
    if labels {
        chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
            let arrow = if b.higher_is_better { "higher is better" } else { "lower is better" };
            let text = format!("{}: {:.2} ({arrow})", b.figure, b.ratio);
            Text::new(text, (right * 0.01, y(i) + 0.7), ("sans-serif", 16))
        }))?;
    }
    chart.draw_series(std::iter::once(PathElement::new(vec![(1.0, 0.0), (1.0, n as f64)], BLACK.stroke_width(2))))?;
    root.present()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, out) = match args.as_slice() {
        [i, o] | [i, o, _] => (i, o),
        _ => return Err("usage: siftdds-bench-chart RATIOS.tsv OUT.png [FONT.ttf]".into()),
    };
    let font_path = args.get(2).map_or(DEFAULT_FONT, String::as_str);
    let bars = parse(&std::fs::read_to_string(input)?)?;
    // register_font wants 'static bytes: the font lives for the whole (short) run.
    let labels = match std::fs::read(font_path) {
        Ok(bytes) => register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into_boxed_slice())).is_ok(),
        Err(e) => {
            eprintln!("siftdds-bench-chart: {font_path}: {e}; drawing without labels");
            false
        }
    };
    draw(&bars, out, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_figures_and_rejects_short_lines() {
        let bars = parse("# c\nthroughput 16 B 1 core\t1.25\t1\nlatency p50\t0.8\t0\n").unwrap();
        assert_eq!(bars.len(), 2);
        assert_eq!((bars[0].ratio, bars[0].higher_is_better), (1.25, true));
        assert!(!bars[1].higher_is_better);
        assert!(parse("x\t1\n").is_err());
        assert!(parse("x\tnan?\t1\n").is_err());
    }
}
