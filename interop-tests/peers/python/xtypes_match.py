#!/usr/bin/env python3
"""A writer of `mt::Probe` on pip `cyclonedds` (Cyclone DDS 11 bundled in the wheel) whose
type is not the one the siftdds reader of interop-tests/xtypes.rs has under the same topic
and type name, for matching by type assignability (DDS-XTypes 1.3 §7.2.4.4). Run it inside
the network sandbox only. Cyclone announces the type's TypeInformation and serves its
TypeObjects through its TypeLookup service.

The reader's type is `@appendable struct Probe { @key long ident; long x; }`.

  xtypes_match.py DOMAIN SECONDS other   `x` is a string: not assignable, never matched
  xtypes_match.py DOMAIN SECONDS added   a member `double added` after `x`: assignable

Writes sample i every 100 ms for SECONDS seconds: ident = i, x = i (`str(i)` for `other`),
added = 0.5. Prints `ready` once the writer exists.
"""
import sys
import time
from dataclasses import dataclass

from cyclonedds.core import Qos, Policy
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.annotations import appendable, key
from cyclonedds.idl.types import int32
from cyclonedds.pub import DataWriter
from cyclonedds.topic import Topic


@dataclass
@appendable
class Other(IdlStruct, typename="mt::Probe"):
    ident: int32
    key("ident")
    x: str


@dataclass
@appendable
class Added(IdlStruct, typename="mt::Probe"):
    ident: int32
    key("ident")
    x: int32
    added: float


domain, seconds, variant = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
kind = {"other": Other, "added": Added}[variant]
dp = DomainParticipant(domain)
topic = Topic(dp, "MatchProbe", kind)
qos = Qos(Policy.DataRepresentation(use_xcdrv2_representation=True))
writer = DataWriter(dp, topic, qos=qos)
print("ready", flush=True)
end = time.monotonic() + seconds
i = 0
while time.monotonic() < end:
    if variant == "other":
        writer.write(Other(ident=i, x=str(i)))
    else:
        writer.write(Added(ident=i, x=i, added=0.5))
    i += 1
    time.sleep(0.1)
