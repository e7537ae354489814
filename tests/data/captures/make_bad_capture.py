#!/usr/bin/env python3
"""Writes bad-messages.pcap: a hand-made classic pcap (Ethernet link type) whose UDP datagrams
are RTPS messages with known defects, next to a good one. `siftdds inspect` must report
malformed: 4 and exit 1. Each frame, in order:
  1. good:      INFO_TS + HEARTBEAT (little-endian)           -> 2 submessages, accepted
  2. malformed: HEARTBEAT whose octetsToNextHeader runs past the end of the datagram
  3. malformed: DATA with both D and K flags set (RTPS 2.5 §9.4.5.3: invalid)
  4. malformed: ACKNACK with numBits = 300 (> 256, RTPS 2.5 §9.4.2.6)
  5. malformed: RTPS header with protocol major version 3
  6. not RTPS:  a UDP datagram of garbage (counted as not RTPS, not as a message)
  7. not understood: vendor submessage 0x80 followed by a good HEARTBEAT
Run from anywhere: python3 make_bad_capture.py (writes beside itself)."""
import os
import struct

PREFIX = bytes(range(1, 13))
HDR = b"RTPS" + bytes([2, 5, 0x01, 0xF0]) + PREFIX
W = bytes([0, 0, 1, 0x02])  # user writer with key
R = bytes([0, 0, 1, 0x07])  # user reader with key


def sub(kind, flags, body, length=None):
    n = len(body) if length is None else length
    return struct.pack("<BBH", kind, flags | 1, n) + body


def sn(v):
    return struct.pack("<iI", v >> 32, v & 0xFFFFFFFF)


heartbeat = R + W + sn(1) + sn(10) + struct.pack("<i", 1)
info_ts = struct.pack("<iI", 1_700_000_000, 0)
messages = [
    HDR + sub(0x09, 0, info_ts) + sub(0x07, 0, heartbeat),
    HDR + sub(0x07, 0, heartbeat, length=200),
    HDR + sub(0x15, 0x04 | 0x08, struct.pack("<HH", 0, 16) + R + W + sn(1) + b"\x00\x01\x00\x00abcd"),
    HDR + sub(0x06, 0, R + W + sn(1) + struct.pack("<I", 300) + bytes(4 * 10) + struct.pack("<i", 1)),
    b"RTPS" + bytes([3, 0, 0x01, 0xF0]) + PREFIX + sub(0x07, 0, heartbeat),
    b"\x00garbage, not rtps",
    HDR + sub(0x80, 0, b"vend") + sub(0x07, 0, heartbeat),
]


def frame(payload):
    udp = struct.pack("!HHHH", 7410, 7400, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([127, 0, 0, 1]), bytes([239, 255, 0, 1])) + udp
    eth = bytes([1, 0, 0x5E, 0x7F, 0, 1]) + bytes(6) + b"\x08\x00"
    return eth + ip


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad-messages.pcap")
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, m in enumerate(messages):
        fr = frame(m)
        f.write(struct.pack("<IIII", 1_700_000_000 + i, 0, len(fr), len(fr)))
        f.write(fr)
print(out)
