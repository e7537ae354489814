#!/usr/bin/env python3
"""ShapeType peer on pip `cyclonedds` (Cyclone DDS 11 bundled in the wheel) for siftdds's
interop tests (interop-tests/xcdr2.rs). Run it inside the network sandbox only.

The type is the OMG Shapes demo's 4-member @appendable ShapeType (type name "ShapeType", key
`color`); siftdds's ShapeType appends `sequence<uint8> additional_payload_size`, which an
appendable reader of the shorter type skips (DDS-XTypes 1.3 §7.4.3.5.2, DHEADER).

The data representation is chosen with the DataRepresentation QoS policy, on the writer and
on the reader: `Policy.DataRepresentation(use_xcdrv2_representation=True)` makes the writer
serialize XCDR2 and the reader accept only XCDR2 (cyclonedds/pub.py `_use_version_2`,
qos.py `_set_p_datarepresentation`).

  shapes_xcdr.py pub DOMAIN TOPIC COUNT [--xcdr 1|2] [--dispose] [--final] [--delay S]
      waits for a reader (then S seconds more), writes COUNT samples color RED, x = i,
      y = 2 i, shapesize = 30 + i % 7 (with --dispose then disposes RED), waits for acks,
      exits 0. --final: the same members as a @final ShapeType (XCDR2 without DHEADER).
  shapes_xcdr.py sub DOMAIN TOPIC COUNT [--xcdr 1|2] [--dispose]   prints `SAMPLE color x y
      shapesize` per sample until COUNT arrived (exit 0) or 30 s passed (exit 1); with
      --dispose it also waits for an instance to be disposed and prints `DISPOSED`.

Both print `libddsc: PATH` (the Cyclone library this process loaded, from /proc/self/maps),
`matched` once matched, and exit on SIGINT/SIGTERM.
"""

import argparse
import signal
import sys
import time
from dataclasses import dataclass

from cyclonedds.core import InstanceState, Qos, Policy
from cyclonedds.internal import InvalidSample
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.annotations import appendable, final, key
from cyclonedds.idl.types import bounded_str, int32
from cyclonedds.pub import DataWriter, Publisher
from cyclonedds.sub import DataReader, Subscriber
from cyclonedds.topic import Topic
from cyclonedds.util import duration

TIMEOUT_S = 30


@dataclass
@appendable
class ShapeType(IdlStruct, typename="ShapeType"):
    color: bounded_str[128]
    key("color")
    x: int32
    y: int32
    shapesize: int32


@dataclass
@final
class FinalShapeType(IdlStruct, typename="ShapeType"):
    color: bounded_str[128]
    key("color")
    x: int32
    y: int32
    shapesize: int32


stop = False


def on_signal(_signum, _frame):
    global stop
    stop = True


def say(line):
    print(line, flush=True)


def loaded_ddsc():
    with open("/proc/self/maps") as maps:
        paths = {l.split()[-1] for l in maps if "libddsc" in l}
    return ",".join(sorted(paths)) or "none"


def qos(xcdr):
    representation = Policy.DataRepresentation(
        use_cdrv0_representation=(xcdr == 1), use_xcdrv2_representation=(xcdr == 2))
    return Qos(
        Policy.Reliability.Reliable(max_blocking_time=duration(seconds=1)),
        Policy.History.KeepAll,
        representation,
    )


def publish(participant, topic, count, xcdr, dispose, cls=None, delay=0.0):
    cls = cls or ShapeType
    writer = DataWriter(Publisher(participant), topic, qos=qos(xcdr))
    deadline = time.monotonic() + TIMEOUT_S
    while not writer.get_matched_subscriptions():
        if stop or time.monotonic() > deadline:
            say("no reader matched")
            return 1
        time.sleep(0.05)
    say("matched")
    time.sleep(delay)
    for i in range(count):
        writer.write(cls(color="RED", x=i, y=2 * i, shapesize=30 + i % 7))
    if dispose:
        writer.dispose(cls(color="RED", x=0, y=0, shapesize=0))
        say("disposed")
    if not writer.wait_for_acks(duration(seconds=TIMEOUT_S)):
        say("not acknowledged")
        return 1
    say("done")
    # Let the reader see the last heartbeat's answer before our participant disappears.
    time.sleep(0.5)
    return 0


def subscribe(participant, topic, count, xcdr, want_dispose):
    reader = DataReader(Subscriber(participant), topic, qos=qos(xcdr))
    deadline = time.monotonic() + TIMEOUT_S
    got = 0
    disposed = False
    matched = False
    while (got < count or want_dispose and not disposed) and not stop \
            and time.monotonic() < deadline:
        if not matched and reader.get_matched_publications():
            matched = True
            say("matched")
        for s in reader.take(N=100):
            if not isinstance(s, InvalidSample):
                say(f"SAMPLE {s.color} {s.x} {s.y} {s.shapesize}")
                got += 1
            # A dispose that arrives while samples of the instance wait is only seen in their
            # instance state; otherwise it comes as an invalid sample.
            state = s.sample_info.instance_state
            if state == InstanceState.NotAliveDisposed and not disposed:
                disposed = True
                say("DISPOSED")
        time.sleep(0.01)
    return 0 if got >= count and (disposed or not want_dispose) else 1


def main():
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=["pub", "sub"])
    ap.add_argument("domain", type=int)
    ap.add_argument("topic")
    ap.add_argument("count", type=int)
    ap.add_argument("--xcdr", type=int, choices=[1, 2], default=2)
    ap.add_argument("--dispose", action="store_true")
    ap.add_argument("--final", action="store_true")
    ap.add_argument("--delay", type=float, default=0.0)
    a = ap.parse_args()
    participant = DomainParticipant(a.domain)
    say(f"libddsc: {loaded_ddsc()}")
    cls = FinalShapeType if a.final else ShapeType
    topic = Topic(participant, a.topic, cls)
    if a.role == "pub":
        return publish(participant, topic, a.count, a.xcdr, a.dispose, cls, a.delay)
    return subscribe(participant, topic, a.count, a.xcdr, a.dispose)


if __name__ == "__main__":
    sys.exit(main())
