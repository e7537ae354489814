#!/usr/bin/env python3
"""ShapeType peer on PyPI `rticonnextdds-connector` (RTI Connext DDS 6.1.2 core libraries
bundled in the wheel) for siftdds's interop tests (interop-tests/rti.rs,
interop-tests/sites/router_chain.rs). Run it inside the network sandbox only: the participant
is restricted to UDPv4 (shared memory off, so that it talks UDP to siftdds) on the interfaces
named in `SHAPES_RTI_INTERFACES` (comma separated; the loopback `lo` when unset).

The type is the OMG Shapes demo's ShapeType (key `color`, then x, y, shapesize) declared
@final in the connector's XML, so RTI writes XCDR1 (CDR_LE), the same bytes as siftdds's
ShapeType without its trailing sequence, which a reader of the shorter type does not need.

  shapes_rti.py pub DOMAIN TOPIC COUNT [KEEP_LAST [PERIOD_MS]]   waits for a reader, writes
      COUNT samples, colour RED for even i and BLUE for odd i, x = i, y = 2 i, shapesize = 30
      (reliable; KEEP_ALL, or KEEP_LAST depth KEEP_LAST when given and not 0; PERIOD_MS
      between writes, default 0), waits for acknowledgements, prints `done`, exits 0.
  shapes_rti.py sub DOMAIN TOPIC COUNT   prints `SAMPLE color x y shapesize` per valid sample
      until COUNT arrived (exit 0) or 30 s passed (exit 1).

  shapes_rti.py life DOMAIN TOPIC ACTION   the instance life cycle: declares ShapeType with
      its `additional_payload_size` (sequence<octet>, written empty), as the vendors' Shapes
      peers do; reliable, KEEP_ALL, a participant lease of 3 s (asserted every second, so that
      a killed writer is noticed within seconds), autodispose_unregistered_instances off.
      Waits for a reader, writes 20 rounds of RED and BLUE 50 ms apart (x = i, y = 2 i), then
      ACTION on RED: `dispose` (prints `disposed RED`), `unregister` (prints `unregistered
      RED`) or `none`; then keeps BLUE registered, idle, until ended (SIGKILL in the tests:
      no goodbye, the lease decides) or 85 s passed (exit 0).

All print `connext: VERSION` (the bundled core's build string) and `matched` once matched.
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
            <value>{interfaces}</value>
          </element>
        </value></property>{discovery}
      </participant_qos>
      <datawriter_qos>
        <reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability>
        <history>{writer_history}</history>{lifecycle}
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
    <struct name="ShapeTypeFull" extensibility="final">
      <member name="color" type="string" stringMaxLength="128" key="true"/>
      <member name="x" type="int32"/>
      <member name="y" type="int32"/>
      <member name="shapesize" type="int32"/>
      <member name="additional_payload_size" type="byte" sequenceMaxLength="1024"/>
    </struct>
  </types>
  <domain_library name="Domains">
    <domain name="Shapes" domain_id="{domain}">
      <register_type name="ShapeType" type_ref="{type}"/>
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


# The life mode's additions to the profile: a short participant lease, and unregister
# without dispose.
LIFE_DISCOVERY = """
        <discovery_config>
          <participant_liveliness_lease_duration><sec>3</sec><nanosec>0</nanosec>
          </participant_liveliness_lease_duration>
          <participant_liveliness_assert_period><sec>1</sec><nanosec>0</nanosec>
          </participant_liveliness_assert_period>
        </discovery_config>"""
LIFE_LIFECYCLE = """
        <writer_data_lifecycle>
          <autodispose_unregistered_instances>false</autodispose_unregistered_instances>
        </writer_data_lifecycle>"""
LIFE_ROUNDS = 20
LIFE_PERIOD_S = 0.05
LIFE_LINGER_S = 85


def life(connector, action):
    writer = connector.get_output("Pub::W")
    try:
        writer.wait_for_subscriptions(TIMEOUT_S * 1000)
    except rti.TimeoutError:
        say("no reader matched")
        return 1
    say("matched")
    for i in range(LIFE_ROUNDS):
        for color in ("RED", "BLUE"):
            writer.instance.set_dictionary(
                {"color": color, "x": i, "y": 2 * i, "shapesize": 30})
            writer.write()
        time.sleep(LIFE_PERIOD_S)
    if action != "none":
        writer.instance.set_dictionary({"color": "RED", "x": 0, "y": 0, "shapesize": 0})
        writer.write(action=action)
        say(f"{'disposed' if action == 'dispose' else 'unregistered'} RED")
    deadline = time.monotonic() + LIFE_LINGER_S
    while time.monotonic() < deadline:
        time.sleep(0.5)
    return 0


def main():
    role, domain, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    is_life = role == "life"
    action, count, keep_last, period_ms = "none", 0, 0, 0
    if is_life:
        action = sys.argv[4]
        if action not in ("none", "dispose", "unregister"):
            say(f"unknown action {action}")
            return 2
    else:
        count = int(sys.argv[4])
        keep_last = int(sys.argv[5]) if len(sys.argv) > 5 else 0
        period_ms = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    say(f"connext: {connext_version()}")
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        history = "<kind>KEEP_ALL_HISTORY_QOS</kind>" if keep_last == 0 else \
            f"<kind>KEEP_LAST_HISTORY_QOS</kind><depth>{keep_last}</depth>"
        f.write(CONFIG.replace("{domain}", str(domain)).replace("{topic}", topic)
                .replace("{writer_history}", history)
                .replace("{interfaces}", os.environ.get("SHAPES_RTI_INTERFACES", "lo"))
                .replace("{discovery}", LIFE_DISCOVERY if is_life else "")
                .replace("{lifecycle}", LIFE_LIFECYCLE if is_life else "")
                .replace("{type}", "ShapeTypeFull" if is_life else "ShapeType"))
        path = f.name
    try:
        name = "Participants::Reader" if role == "sub" else "Participants::Writer"
        with rti.open_connector(config_name=name, url=path) as connector:
            if is_life:
                return life(connector, action)
            if role == "pub":
                return publish(connector, count, period_ms)
            return subscribe(connector, count)
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
