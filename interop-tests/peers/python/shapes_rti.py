#!/usr/bin/env python3
"""ShapeType peer on PyPI `rticonnextdds-connector` (RTI Connext DDS 6.1.2 core libraries
bundled in the wheel) for siftdds's interop tests (interop-tests/rti.rs). Run it inside the
network sandbox only: the participant is restricted to UDPv4 on the loopback interface
(shared memory off, so that it talks UDP to siftdds).

The type is the OMG Shapes demo's ShapeType (key `color`, then x, y, shapesize) declared
@final in the connector's XML, so RTI writes XCDR1 (CDR_LE), the same bytes as siftdds's
ShapeType without its trailing sequence, which a reader of the shorter type does not need.

  shapes_rti.py pub DOMAIN TOPIC COUNT [KEEP_LAST [PERIOD_MS]]   waits for a reader, writes
      COUNT samples, colour RED for even i and BLUE for odd i, x = i, y = 2 i, shapesize = 30
      (reliable; KEEP_ALL, or KEEP_LAST depth KEEP_LAST when given and not 0; PERIOD_MS
      between writes, default 0), waits for acknowledgements, prints `done`, exits 0.
  shapes_rti.py sub DOMAIN TOPIC COUNT   prints `SAMPLE color x y shapesize` per valid sample
      until COUNT arrived (exit 0) or 30 s passed (exit 1).

Both print `connext: VERSION` (the bundled core's build string) and `matched` once matched.
"""

import os
import sys
import tempfile
import time

import rticonnextdds_connector as rti

TIMEOUT_S = 30

CONFIG = """<?xml version="1.0"?>
<dds>
  <qos_library name="Lib">
    <qos_profile name="Shapes">
      <participant_qos>
        <transport_builtin><mask>UDPv4</mask></transport_builtin>
        <property><value>
          <element>
            <name>dds.transport.UDPv4.builtin.parent.allow_interfaces</name>
            <value>lo</value>
          </element>
        </value></property>
      </participant_qos>
      <datawriter_qos>
        <reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability>
        <history>{writer_history}</history>
      </datawriter_qos>
      <datareader_qos>
        <reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability>
        <history><kind>KEEP_ALL_HISTORY_QOS</kind></history>
      </datareader_qos>
    </qos_profile>
  </qos_library>
  <types>
    <struct name="ShapeType" extensibility="final">
      <member name="color" type="string" stringMaxLength="128" key="true"/>
      <member name="x" type="int32"/>
      <member name="y" type="int32"/>
      <member name="shapesize" type="int32"/>
    </struct>
  </types>
  <domain_library name="Domains">
    <domain name="Shapes" domain_id="{domain}">
      <register_type name="ShapeType" type_ref="ShapeType"/>
      <topic name="{topic}" register_type_ref="ShapeType"/>
    </domain>
  </domain_library>
  <domain_participant_library name="Participants">
    <domain_participant name="Writer" domain_ref="Domains::Shapes">
      <participant_qos base_name="Lib::Shapes"/>
      <publisher name="Pub">
        <data_writer name="W" topic_ref="{topic}">
          <datawriter_qos base_name="Lib::Shapes"/>
        </data_writer>
      </publisher>
    </domain_participant>
    <domain_participant name="Reader" domain_ref="Domains::Shapes">
      <participant_qos base_name="Lib::Shapes"/>
      <subscriber name="Sub">
        <data_reader name="R" topic_ref="{topic}">
          <datareader_qos base_name="Lib::Shapes"/>
        </data_reader>
      </subscriber>
    </domain_participant>
  </domain_participant_library>
</dds>
"""


def say(line):
    print(line, flush=True)


def connext_version():
    lib = os.path.join(os.path.dirname(rti.__file__), "..", "rticonnextdds-connector", "lib",
                       "linux-x64", "libnddscore.so")
    try:
        data = open(lib, "rb").read()
    except OSError:
        return "unknown"
    at = data.find(b"NDDSCORE_BUILD_")
    return data[at:data.find(b"\0", at)].decode() if at >= 0 else "unknown"


def publish(connector, count, period_ms):
    writer = connector.get_output("Pub::W")
    try:
        writer.wait_for_subscriptions(TIMEOUT_S * 1000)
    except rti.TimeoutError:
        say("no reader matched")
        return 1
    say("matched")
    for i in range(count):
        writer.instance.set_dictionary(
            {"color": "RED" if i % 2 == 0 else "BLUE", "x": i, "y": 2 * i, "shapesize": 30})
        writer.write()
        if period_ms:
            time.sleep(period_ms / 1000)
    try:
        writer.wait(TIMEOUT_S * 1000)
    except rti.TimeoutError:
        say("not acknowledged")
        return 1
    say("done")
    # Let the reader see the last heartbeat's answer before our participant disappears.
    time.sleep(0.5)
    return 0


def subscribe(connector, count):
    reader = connector.get_input("Sub::R")
    deadline = time.monotonic() + TIMEOUT_S
    got = 0
    matched = False
    while got < count and time.monotonic() < deadline:
        if not matched and reader.matched_publications:
            matched = True
            say("matched")
        try:
            reader.wait(200)
        except rti.TimeoutError:
            continue
        reader.take()
        for s in reader.samples.valid_data_iter:
            d = s.get_dictionary()
            say(f"SAMPLE {d['color']} {d['x']} {d['y']} {d['shapesize']}")
            got += 1
    return 0 if got >= count else 1


def main():
    role, domain, topic, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    keep_last = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    period_ms = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    say(f"connext: {connext_version()}")
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        history = "<kind>KEEP_ALL_HISTORY_QOS</kind>" if keep_last == 0 else \
            f"<kind>KEEP_LAST_HISTORY_QOS</kind><depth>{keep_last}</depth>"
        f.write(CONFIG.replace("{domain}", str(domain)).replace("{topic}", topic)
                .replace("{writer_history}", history))
        path = f.name
    try:
        name = "Participants::Writer" if role == "pub" else "Participants::Reader"
        with rti.open_connector(config_name=name, url=path) as connector:
            if role == "pub":
                return publish(connector, count, period_ms)
            return subscribe(connector, count)
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
