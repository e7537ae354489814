#!/usr/bin/env python3
"""A writer of a type siftdds is never given, on pip `cyclonedds` (Cyclone DDS 11 bundled in
the wheel), for `siftdds spy`'s TypeLookup test (interop-tests/xtypes.rs). Run it inside the
network sandbox only.

The type `probe::Probe` (@appendable, XCDR2) has a key, a nested struct, a sequence of
structs, a union and an optional member; Cyclone announces its TypeInformation and serves
its TypeObjects through its TypeLookup service.

  xtypes_probe.py DOMAIN SECONDS   writes sample i every 100 ms for SECONDS seconds:
      ident = i, origin = {x: i, y: 0.5}, points = [{x: 1, y: 1.5}, {x: 2, y: 2.5}],
      val = case s "hi" for even i, case n = 10 i for odd i, note = "odd" for odd i and
      absent for even i. Prints `ready` once the writer exists.
"""
import sys
import time
from dataclasses import dataclass
from typing import Optional

from cyclonedds.core import Qos, Policy
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct, IdlUnion
from cyclonedds.idl.annotations import appendable, key
from cyclonedds.idl.types import case, int32, sequence
from cyclonedds.pub import DataWriter
from cyclonedds.topic import Topic


@dataclass
@appendable
class Point(IdlStruct, typename="probe::Point"):
    x: int32
    y: float


@appendable
class Value(IdlUnion, discriminator=int32, typename="probe::Value"):
    n: case[1, int32]
    s: case[2, str]


@dataclass
@appendable
class Probe(IdlStruct, typename="probe::Probe"):
    ident: int32
    key("ident")
    origin: Point
    points: sequence[Point]
    val: Value
    note: Optional[str] = None


domain, seconds = int(sys.argv[1]), float(sys.argv[2])
dp = DomainParticipant(domain)
topic = Topic(dp, "ProbeTopic", Probe)
qos = Qos(Policy.DataRepresentation(use_xcdrv2_representation=True))
writer = DataWriter(dp, topic, qos=qos)
print("ready", flush=True)
end = time.monotonic() + seconds
i = 0
while time.monotonic() < end:
    val = Value(s="hi") if i % 2 == 0 else Value(n=10 * i)
    writer.write(
        Probe(
            ident=i,
            origin=Point(x=i, y=0.5),
            points=[Point(x=1, y=1.5), Point(x=2, y=2.5)],
            val=val,
            note="odd" if i % 2 else None,
        )
    )
    i += 1
    time.sleep(0.1)
