#!/usr/bin/env python3
"""Writes tests/data/xcdr/vectors.txt: the types of idl/xcdr_vectors.idl, defined again with
the cyclonedds Python package, and chosen values serialized by it in XCDR1 and XCDR2, both
byte orders. idl-tests/tests/vectors.rs builds the same values with the generated Rust types
and compares bytes. Serializing opens no socket, but run it under scripts/netns-run anyway
(importing cyclonedds loads ddsc):

    scripts/netns-run python3 scripts/gen-xcdr-vectors.py

With `--check target/tmp/xcdr-ours.txt` it instead decodes the payloads idl-tests wrote there
(our encodings of the same values) and checks Cyclone reads back the same values.

Line format: `<value> <xcdr1|xcdr2> <be|le> <hex>` (the payload including its 4-byte
encapsulation header), and `key <value> <hex> <keyhash>`: the key holder as Cyclone's Python
serializes it normalized (member-id order) in XCDR2 big-endian, and the key hash derived from
it the way Cyclone decides (bytes zero-padded when the holder's maximum size is <= 16, else
MD5; RTPS 2.5 §9.6.4.8).
"""
from dataclasses import dataclass
from hashlib import md5
from pathlib import Path
from typing import Optional
import sys

from importlib.metadata import version
from cyclonedds.idl import IdlStruct, IdlUnion, IdlEnum
import cyclonedds.idl.annotations as annotate
import cyclonedds.idl.types as t
from cyclonedds.idl._support import Endianness


class Color(IdlEnum, typename="xv::Color", default="RED"):
    RED = 0
    GREEN = 1
    BLUE = 10


LongSeq = t.typedef["xv::LongSeq", t.sequence[t.int32, 4]]
Grid = t.typedef["xv::Grid", t.array[t.array[t.int16, 3], 2]]


@dataclass
@annotate.final
class Prims(IdlStruct, typename="xv::Prims"):
    id: t.int32
    annotate.key("id")
    b: bool
    o: t.byte
    c: t.char
    i8: t.int8
    u8: t.uint8
    s: t.int16
    us: t.uint16
    l: t.int32
    ul: t.uint32
    ll: t.int64
    ull: t.uint64
    f: t.float32
    d: t.float64
    wc: t.wchar


@dataclass
@annotate.final
class Inner(IdlStruct, typename="xv::Inner"):
    a: t.int16
    b: t.float64


@dataclass
@annotate.appendable
class AppInner(IdlStruct, typename="xv::AppInner"):
    tag: t.byte
    name: str


@dataclass
@annotate.final
class Collections(IdlStruct, typename="xv::Collections"):
    bs: t.bounded_str[8]
    us: str
    bytes: t.sequence[t.byte]
    longs: LongSeq
    doubles: t.sequence[t.float64, 3]
    strings: t.sequence[str]
    inners: t.sequence[Inner]
    apps: t.sequence[AppInner, 2]
    grid: Grid
    pair: t.array[Inner, 2]
    names: t.array[str, 2]
    nested: t.sequence[t.sequence[t.int16]]


@dataclass
@annotate.final
class Enums(IdlStruct, typename="xv::Enums"):
    colors: t.sequence[Color]
    pair: t.array[Color, 2]
    few: t.sequence[Color, 3]


@dataclass
@annotate.appendable
class AppBase(IdlStruct, typename="xv::AppBase"):
    id: t.int32
    annotate.key("id")
    label: t.bounded_str[16]


@dataclass
@annotate.appendable
class AppDerived(AppBase, typename="xv::AppDerived"):
    color: Color
    maybe: Optional[t.int32]
    note: Optional[str]
    inner: AppInner


@dataclass
@annotate.mutable
class Mut(IdlStruct, typename="xv::Mut"):
    id: t.int32
    annotate.key("id")
    annotate.member_id("id", 5)
    name: str
    annotate.member_id("name", 2)
    value: Optional[t.float64]
    annotate.member_id("value", 7)
    absent: Optional[t.int16]
    annotate.member_id("absent", 9)
    longs: t.sequence[t.int32]
    annotate.member_id("longs", 20)
    bytes: t.sequence[t.byte]
    annotate.member_id("bytes", 21)
    lls: t.sequence[t.int64]
    annotate.member_id("lls", 22)
    shorts: t.sequence[t.int16]
    annotate.member_id("shorts", 23)
    inner: Inner
    annotate.member_id("inner", 30)
    app: AppInner
    annotate.member_id("app", 31)
    color: Color
    annotate.member_id("color", 32)
    flag: bool
    annotate.member_id("flag", 33)
    big: t.int64
    annotate.member_id("big", 34)
    grid: t.array[t.array[t.int16, 2], 2]
    annotate.member_id("grid", 35)
    words: t.sequence[str]
    annotate.member_id("words", 36)
    letter: t.char
    annotate.member_id("letter", 37)


@dataclass
@annotate.mutable
@annotate.autoid("hash")
class Hashed(IdlStruct, typename="xv::Hashed"):
    alpha: t.int32
    beta: str


@annotate.final
class FinalU(IdlUnion, discriminator=t.int32, typename="xv::FinalU"):
    number: t.case[[1], t.int32]
    text: t.case[[2, 3], str]
    other: t.default[t.float64]


@annotate.appendable
class AppU(IdlUnion, discriminator=Color, typename="xv::AppU"):
    small: t.case[[Color.RED], t.byte]
    inner: t.case[[Color.GREEN], Inner]
    other: t.default[str]


@annotate.final
class ShortU(IdlUnion, discriminator=t.int16, typename="xv::ShortU"):
    a: t.case[[1], t.int16]
    b: t.case[[2], t.int64]


@dataclass
@annotate.appendable
class WithUnions(IdlStruct, typename="xv::WithUnions"):
    k: t.int16
    annotate.key("k")
    f: FinalU
    a: AppU
    s: ShortU


@dataclass
@annotate.final
class KeyedFinal(IdlStruct, typename="xv::KeyedFinal"):
    id: t.uint64
    annotate.key("id")
    tag: t.char
    annotate.key("tag")
    value: t.int32


@dataclass
@annotate.final
class NestedKey(IdlStruct, typename="xv::NestedKey"):
    where: Inner
    annotate.key("where")
    v: t.int32


# The values; idl-tests/tests/vectors.rs builds the same ones under the same names.
VALUES = {
    "prims": Prims(id=-7, b=True, o=0xAB, c="z", i8=-5, u8=250, s=-300, us=60000, l=-70000,
                   ul=4000000000, ll=-(1 << 40), ull=(1 << 63) + 5, f=1.5, d=-2.25, wc=0xE9),
    "collections": Collections(
        bs="eight", us="unbounded", bytes=[1, 2, 3], longs=[10, -20, 30], doubles=[0.5, 1e300],
        strings=["a", "bc", ""], inners=[Inner(a=1, b=2.0), Inner(a=-1, b=-0.5)],
        apps=[AppInner(tag=9, name="nine")], grid=[[1, 2, 3], [4, 5, 6]],
        pair=[Inner(a=7, b=7.5), Inner(a=8, b=8.5)], names=["x", "yz"],
        nested=[[1], [], [2, 3]]),
    "collections_empty": Collections(
        bs="", us="", bytes=[], longs=[], doubles=[], strings=[], inners=[], apps=[],
        grid=[[0, 0, 0], [0, 0, 0]], pair=[Inner(a=0, b=0.0), Inner(a=0, b=0.0)],
        names=["", ""], nested=[]),
    "enums": Enums(colors=[Color.BLUE, Color.RED], pair=[Color.GREEN, Color.BLUE],
                   few=[Color.GREEN]),
    "app_derived": AppDerived(id=42, label="base", color=Color.BLUE, maybe=-1, note="hi",
                              inner=AppInner(tag=1, name="in")),
    "app_derived_absent": AppDerived(id=43, label="", color=Color.GREEN, maybe=None, note=None,
                                     inner=AppInner(tag=2, name="")),
    "mut": Mut(id=11, name="mutable", value=3.25, absent=None, longs=[1, 2], bytes=[7, 8, 9],
               lls=[-1, 1 << 33], shorts=[5, 6, 7], inner=Inner(a=3, b=4.5),
               app=AppInner(tag=5, name="app"), color=Color.BLUE, flag=True, big=1 << 50,
               grid=[[1, 2], [3, 4]], words=["w1", "w2"], letter="Q"),
    "hashed": Hashed(alpha=5, beta="hash"),
    "with_unions_number": WithUnions(k=1, f=FinalU(number=99), a=AppU(small=3),
                                     s=ShortU(a=-2)),
    "with_unions_text": WithUnions(k=2, f=FinalU(discriminator=3, value="three"),
                                   a=AppU(inner=Inner(a=4, b=0.25)), s=ShortU(b=1 << 40)),
    "with_unions_default": WithUnions(k=3, f=FinalU(discriminator=77, value=6.5),
                                      a=AppU(discriminator=Color.BLUE, value="blue"),
                                      s=ShortU(discriminator=9, value=None)),
    "keyed_final": KeyedFinal(id=0x0102030405060708, tag="K", value=-1),
    "nested_key": NestedKey(where=Inner(a=2, b=3.5), v=6),
}


def key_hash(obj) -> bytes:
    idl = obj.__idl__
    key = idl.serialize_key_normalized(obj, use_version_2=True, endianness=Endianness.Big)
    if idl.v2_key_max_size <= 16:
        return key, (key + bytes(16))[:16]
    return key, md5(key).digest()


def check(path: str) -> int:
    """Decodes the payloads idl-tests wrote (target/tmp/xcdr-ours.txt) with Cyclone."""
    bad = 0
    lines = Path(path).read_text().splitlines()
    for line in lines:
        name, data = line.split(" ")
        obj = VALUES[name]
        back = type(obj).deserialize(bytes.fromhex(data))
        if back != obj:
            bad += 1
            print(f"{name}: Cyclone decodes our {data} as {back}")
    print(f"Cyclone decoded {len(lines) - bad} of {len(lines)} of our payloads to the same value")
    return 1 if bad else 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        return check(sys.argv[2])
    out = Path(__file__).resolve().parent.parent / "tests" / "data" / "xcdr" / "vectors.txt"
    lines = [f"# cyclonedds (Python) {version('cyclonedds')}; scripts/gen-xcdr-vectors.py"]
    for name, obj in VALUES.items():
        for v2 in (False, True):
            for endian in (Endianness.Big, Endianness.Little):
                data = obj.serialize(use_version_2=v2, endianness=endian)
                back = type(obj).deserialize(data)
                assert back == obj, (name, v2, endian, back)
                ver = "xcdr2" if v2 else "xcdr1"
                e = "be" if endian == Endianness.Big else "le"
                lines.append(f"{name} {ver} {e} {data.hex()}")
        if not obj.__idl__.keyless:
            key, h = key_hash(obj)
            lines.append(f"key {name} {key.hex()} {h.hex()}")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} vectors to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
