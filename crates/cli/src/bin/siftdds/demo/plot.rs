//! `siftdds demo --plot FILE.svg`: the demo's figures as a picture (plotters, SVG backend):
//! on the left, per subscriber, the samples received against the samples its filter passes;
//! on the right, the writer's datagrams and bytes with writer-side filtering against the
//! no-filtering baseline phase (as a share of the baseline).
//!
//! Must not: measure or change a number; it draws what the phases measured.

use std::path::Path;

use plotters::prelude::*;

use super::phase::{PhaseFigures, Subscriber};

const RECEIVED: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);
const EXPECTED: RGBColor = RGBColor(0xb0, 0xb0, 0xb0);
const BASELINE: RGBColor = RGBColor(0xc0, 0x39, 0x2b);

/// Draws the picture into `path`.
pub fn draw(
    path: &Path,
    subs: &[Subscriber],
    f: &PhaseFigures,
    baseline: Option<&PhaseFigures>,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1200, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(760);
    per_subscriber(&left, subs)?;
    traffic(&right, f, baseline)?;
    root.present()?;
    Ok(())
}

fn per_subscriber<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    subs: &[Subscriber],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let n = subs.len().max(1);
    let top = subs
        .iter()
        .map(|s| s.phases[0].expected.max(s.phases[0].received))
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "samples per subscriber: received (blue) vs expected (grey)",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("subscriber")
        .y_desc("samples")
        .x_label_formatter(&integer_label)
        .draw()?;
    chart.draw_series(subs.iter().enumerate().map(|(i, s)| {
        let x = i as f64;
        Rectangle::new(
            [(x - 0.45, 0.0), (x, s.phases[0].expected as f64)],
            EXPECTED.filled(),
        )
    }))?;
    chart.draw_series(subs.iter().enumerate().map(|(i, s)| {
        let x = i as f64;
        Rectangle::new(
            [(x, 0.0), (x + 0.45, s.phases[0].received as f64)],
            RECEIVED.filled(),
        )
    }))?;
    Ok(())
}

/// `x` as a subscriber number when it is a whole number ≥ 0 (bars are centred on them).
fn integer_label(x: &f64) -> String {
    let i = x.round();
    match (x - i).abs() < 1e-6 && i >= 0.0 {
        true => format!("{i:.0}"),
        false => String::new(),
    }
}

fn traffic<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    f: &PhaseFigures,
    baseline: Option<&PhaseFigures>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let w = &f.writer;
    // Each figure as a share of the baseline's (100 %); without a baseline, of itself.
    let bars = [
        (
            "datagrams",
            w.wire_datagrams,
            baseline.map(|b| b.writer.wire_datagrams),
        ),
        ("bytes", w.wire_bytes, baseline.map(|b| b.writer.wire_bytes)),
        ("DATA", w.data_sent, baseline.map(|b| b.writer.data_sent)),
    ];
    let mut chart = ChartBuilder::on(area)
        .caption(
            "writer traffic: filtering (blue) vs no filtering (red), % of no filtering",
            ("sans-serif", 14),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .build_cartesian_2d(-0.5f64..2.5, 0f64..110.0)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(7)
        // Bar i is centred on x = i; other ticks stay unlabelled.
        .x_label_formatter(&|x| {
            let i = x.round();
            match (x - i).abs() < 1e-6 && i >= 0.0 {
                true => bars
                    .get(i as usize)
                    .map_or(String::new(), |b| b.0.to_string()),
                false => String::new(),
            }
        })
        .y_desc("% of the no-filtering baseline")
        .draw()?;
    let share = |with: u64, without: Option<u64>| match without {
        Some(b) if b > 0 => 100.0 * with as f64 / b as f64,
        _ => 100.0,
    };
    chart.draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
        let x = i as f64;
        b.2.map(|_| Rectangle::new([(x - 0.4, 0.0), (x, 100.0)], BASELINE.filled()))
    }))?;
    chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
        let x = i as f64;
        Rectangle::new([(x, 0.0), (x + 0.4, share(b.1, b.2))], RECEIVED.filled())
    }))?;
    Ok(())
}
