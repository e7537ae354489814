//! `siftdds-consumer pub|sub [DOMAIN]`: ten RED shapes written with `write_async`, or the
//! first ten shapes received through `DataReader::stream()` printed with their states, on
//! tokio. It opens sockets: inside the repository, run it in the network sandbox
//! (`scripts/netns-run target/debug/siftdds-consumer sub`); elsewhere a participant uses
//! loopback only unless interfaces are configured.

// A program: it counts and scales what it built itself; the parse-path lints of the
// workspace are siftdds-proto's.
#![allow(clippy::arithmetic_side_effects)]

use std::time::Duration;

use siftdds::qos::DataRepresentation;
use siftdds_consumer::{Shape, participant, publish, receive, shape_reader, shape_writer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let role = args.next().unwrap_or_default();
    let domain: u32 = args.next().map(|d| d.parse()).transpose()?.unwrap_or(0);
    let participant = participant(domain)?;
    match role.as_str() {
        "pub" => {
            let writer = shape_writer(&participant, "Square", DataRepresentation::XCDR)?;
            let shapes: Vec<Shape> = (0..10).map(|i| Shape::new("RED", 10 * i, 5 * i)).collect();
            // The executor's timer bounds the wait for a reader and its acknowledgements.
            tokio::time::timeout(Duration::from_secs(30), publish(&writer, 1, &shapes)).await??;
            println!("wrote {} shapes", shapes.len());
        }
        "sub" => {
            let reader = shape_reader(&participant, "Square")?;
            for s in receive(&reader, 10, Duration::from_secs(30)).await {
                let i = &s.info;
                match s.value {
                    Some(shape) => println!(
                        "{} x={} y={} {:?} {:?}",
                        shape.color, shape.x, shape.y, i.view_state, i.instance_state
                    ),
                    None => println!("{:?}: {:?}", i.instance_handle, i.instance_state),
                }
            }
        }
        _ => return Err("usage: siftdds-consumer pub|sub [DOMAIN]".into()),
    }
    Ok(())
}
