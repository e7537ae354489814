//! The DCPS reading model in one process, with two participants: a writer writes three
//! instances, disposes one and unregisters another; a reader waits on a WaitSet (a ReadCondition for new samples, a
//! QueryCondition on the contents, a StatusCondition for matching, a GuardCondition to stop)
//! and prints each sample with its SampleInfo, then walks the instances with
//! `read_next_instance`.
//!
//! It opens sockets, so it runs only inside the network sandbox (README, "Network safety"):
//! `cargo build --examples && scripts/netns-run target/debug/examples/instances_and_waitsets`

use std::time::Duration;

use siftdds::api::{
    Condition, DomainParticipant, GuardCondition, InstanceHandle, StateMasks, StatusMask, WaitSet,
};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

fn shape(color: &str, x: i32) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: x,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let participant = DomainParticipant::new(0)?;
    let publishing_participant = DomainParticipant::new(0)?;
    let topic = participant.create_topic::<ShapeType>("Square", TopicQos::default());
    let reader = participant
        .create_subscriber(SubscriberQos::default())
        .create_datareader(
            &topic,
            DataReaderQos {
                reliability: Reliability::reliable(),
                history: History::KeepAll,
                ..DataReaderQos::default()
            },
        )?;
    let writer = publishing_participant
        .create_publisher(PublisherQos::default())
        .create_datawriter(
            &topic,
            DataWriterQos {
                history: History::KeepAll,
                ..DataWriterQos::default()
            },
        )?;

    let unread = reader.create_readcondition(StateMasks::NOT_READ)?;
    let far = reader.create_querycondition(StateMasks::ANY, "x >= %0", &["20"])?;
    let matched = reader.status_condition(StatusMask::SUBSCRIPTION_MATCHED)?;
    let stop = GuardCondition::new();
    let mut waitset = WaitSet::new();
    waitset.attach(&unread);
    waitset.attach(&matched);
    waitset.attach(&stop);

    let stopper = stop.clone();
    let publishing = std::thread::spawn(move || -> Result<(), siftdds::api::Error> {
        writer.wait_for_matched(1, Duration::from_secs(5))?;
        for x in [0, 10, 20] {
            for color in ["RED", "BLUE", "GREEN"] {
                writer.write(&shape(color, x))?;
            }
        }
        writer.dispose(&shape("RED", 0))?;
        writer.unregister_instance(&shape("BLUE", 0))?;
        // Once the reader acknowledged everything, it holds it: time to stop.
        writer.wait_for_acknowledgments(Duration::from_secs(5))?;
        stopper.set_trigger_value(true);
        Ok(())
    });

    loop {
        let triggered = waitset.wait(Duration::from_secs(10))?;
        if triggered.contains(&matched.id()) {
            println!("subscription matched: {:?}", matched.take_changes()?);
        }
        if triggered.contains(&unread.id()) {
            for s in reader.read_w_condition(&unread, usize::MAX)? {
                let i = &s.info;
                println!(
                    "{:<6} {:?} {:?} {:?} valid={} disposed_gen={} no_writers_gen={} rank={}",
                    s.value.as_ref().map_or("-", |v| v.color.as_str()),
                    i.sample_state,
                    i.view_state,
                    i.instance_state,
                    i.valid_data,
                    i.disposed_generation_count,
                    i.no_writers_generation_count,
                    i.sample_rank,
                );
            }
        }
        if triggered.contains(&stop.id()) {
            break;
        }
    }
    publishing
        .join()
        .map_err(|_| "publisher thread panicked")??;
    println!(
        "x >= 20: {} samples",
        reader.read_w_condition(&far, usize::MAX)?.len()
    );

    // Every instance in handle order, with the state it ended in.
    let mut previous = InstanceHandle::NIL;
    loop {
        let samples = reader.take_next_instance(previous, StateMasks::ANY, usize::MAX)?;
        let Some(first) = samples.first() else { break };
        previous = first.info.instance_handle;
        println!(
            "instance {:02x?}: {} samples, {:?}",
            previous.key_hash().map(|k| k[0]),
            samples.len(),
            first.info.instance_state
        );
    }
    Ok(())
}
