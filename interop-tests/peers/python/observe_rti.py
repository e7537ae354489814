#!/usr/bin/env python3
"""RTI Connext DDS peer on PyPI `rticonnextdds-connector` for siftdds's `ls`/`spy` tests
(interop-tests/observe.rs). Run it inside the network sandbox only.

  observe_rti.py DOMAIN SECONDS XMLFILE

writes the Connector configuration to XMLFILE, then runs one participant named "shapes_rti"
(UDPv4 only) with a reliable writer of the 4-member @appendable ShapeType on "Square"
(color RED, x = y = i, shapesize 30, every 50 ms) and a reader of the content-filtered topic
"SquareFiltered" (builtin.sql `x > %0`, parameter 7), for SECONDS seconds. Prints
`rti: ready` once the entities exist.
"""
import sys
import time

import rticonnextdds_connector as rti

domain, seconds, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
xml = f"""<dds>
<types><struct name="ShapeType" extensibility="appendable">
  <member name="color" type="string" stringMaxLength="128" key="true"/>
  <member name="x" type="int32"/><member name="y" type="int32"/>
  <member name="shapesize" type="int32"/>
</struct></types>
<domain_library name="D"><domain name="Shapes" domain_id="{domain}">
  <register_type name="ShapeType" type_ref="ShapeType"/>
  <topic name="Square" register_type_ref="ShapeType"/>
</domain></domain_library>
<domain_participant_library name="P"><domain_participant name="Part" domain_ref="D::Shapes">
  <participant_qos>
    <participant_name><name>shapes_rti</name></participant_name>
    <transport_builtin><mask>UDPv4</mask></transport_builtin>
  </participant_qos>
  <publisher name="Pub"><data_writer name="W" topic_ref="Square"><datawriter_qos>
    <reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability>
  </datawriter_qos></data_writer></publisher>
  <subscriber name="Sub"><data_reader name="R" topic_ref="Square">
    <content_filter name="SquareFiltered" kind="builtin.sql">
      <expression>x &gt; %0</expression>
      <expression_parameters><element>7</element></expression_parameters>
    </content_filter>
  </data_reader></subscriber>
</domain_participant></domain_participant_library>
</dds>"""
with open(path, "w") as f:
    f.write(xml)
with rti.open_connector(config_name="P::Part", url=path) as connector:
    writer = connector.get_output("Pub::W")
    print("rti: ready", flush=True)
    end, i = time.time() + seconds, 0
    while time.time() < end:
        writer.instance.set_string("color", "RED")
        writer.instance.set_number("x", i)
        writer.instance.set_number("y", i)
        writer.instance.set_number("shapesize", 30)
        writer.write()
        i += 1
        time.sleep(0.05)
