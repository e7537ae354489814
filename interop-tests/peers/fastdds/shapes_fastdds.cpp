// Fast DDS 2.9 shapes peer for siftdds interop captures and tests.
//
//   shapes_fastdds pub [options]     write ShapeType samples on topic "Square"
//   shapes_fastdds sub [options]     read them, optionally through a ContentFilteredTopic
//
// Options:
//   -d DOMAIN     domain id (default 0)
//   -T TOPIC      topic name (default "Square")
//   -c COLORS     pub: comma-separated colours written round-robin (default RED,BLUE,GREEN)
//   -n N          pub: samples to write (default 30); sub: exit after N samples (default 0 = no limit)
//   -t SECONDS    exit after this many seconds (default 10)
//   -i MS         pub: interval between samples (default 100)
//   -m N          pub: wait for N matched readers before writing (default 1)
//   -l MS         pub: linger after the last sample before exiting (default 1000)
//   --cft         sub: ContentFilteredTopic "color = %0" with parameter 'RED'
//   -f EXPR       sub: ContentFilteredTopic with this DDSSQL expression
//   -p PARAM      sub: add an expression parameter (repeatable; strings need quotes: "'RED'")
//   -b            best-effort instead of reliable
//   --no-typeinfo do not announce PID_TYPE_INFORMATION / TypeObject v1 in SEDP (needed to match
//                 Cyclone DDS 0.10, which rejects Fast DDS 2.9's PID_TYPE_INFORMATION as invalid).
//                 The TypeObject is still registered locally, so content filters keep working.
//   --type-lookup run Fast DDS's TypeLookup service (server and client; off by default in 2.9)
//   -D v|t|T|P    durability VOLATILE (default), TRANSIENT_LOCAL, TRANSIENT, PERSISTENT
//   --property NAME=VALUE  a participant PROPERTY QoS entry (repeatable), e.g. the DDS Security
//                 dds.sec.* settings
//   --persistence FILE  the SQLite persistence plugin in FILE, with a fixed persistence GUID
//                 per endpoint (Fast DDS 2.9 creates TRANSIENT endpoints only with it)
//   -z BYTES      pub: fill additional_payload_size with BYTES octets (default 0)
//   -A SPEC       PRESENTATION of the publisher/subscriber: access scope i|t|g, then c (coherent
//                 access) and/or o (ordered access), e.g. "tc" (Fast DDS 2.9 announces it but
//                 neither matches on it nor writes coherent sets)
//   -P PARTITION  publisher/subscriber partition (default: the default partition; -p is taken
//                 by the filter parameters)
//   -x COLOR      pub: after the last sample, dispose COLOR's instance
//   -u COLOR      pub: after the last sample (and -x), unregister COLOR's instance
//   -a 0|1        pub: WRITER_DATA_LIFECYCLE autodispose_unregistered_instances (default 1; with
//                 0 an unregister, -u or the writer's deletion, does not dispose)
//   -w N          sub: also wait for N instance state changes (invalid samples) before exiting
//   -N COUNT      flow bench (scripts/bench-flow): sub hosts COUNT readers, each on its own
//                 ContentFilteredTopic "color = %0" with parameter 'C<i>', quiet, printing
//                 "sub: received total <n>" at exit (SIGTERM); pub cycles the colours C0..C<COUNT-1>
//   -F SECONDS    pub: flow bench: once matched, write flat out (no interval) for SECONDS, quiet,
//                 then wait up to 30 s for acknowledgements and print one "summary:" line
//                 (samples, samples/s over writing and draining, CPU µs per sample, drain time)
//
// The sub prints "sub: <k> <color> x=.. y=.. size=.. payload=<len>" per valid sample and
// "sub: instance <color> NOT_ALIVE_DISPOSED|NOT_ALIVE_NO_WRITERS" per invalid one, and after a
// valid one taken when its instance is no longer alive; -w counts these lines (the colour
// is remembered from the instance's earlier samples, else the instance handle in hex). Both
// print "pub|sub: offered|requested incompatible qos total=<n> policy=<id>" from the listener.
// A pub with -m 0 writes at once (e.g. TRANSIENT_LOCAL history for late joiners) and -l keeps
// it alive for them afterwards.
//
// The participant is UDPv4-only (builtin transports, i.e. shared memory, disabled) so that all
// traffic is visible to a packet capture and stays inside a network namespace. Exits on SIGINT
// and SIGTERM. Prints one line per sample written/received.

#include "ShapeType.h"
#include "ShapeTypePubSubTypes.h"
#include "ShapeTypeTypeObject.h"

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/DataWriterListener.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/ContentFilteredTopic.hpp>
#include <fastdds/dds/topic/Topic.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace eprosima::fastdds::dds;
using Clock = std::chrono::steady_clock;

static std::atomic<bool> g_stop{false};

static void on_signal(int)
{
    g_stop = true;
}

struct Options
{
    std::string mode;
    uint32_t domain = 0;
    std::string topic = "Square";
    std::vector<std::string> colors{"RED", "BLUE", "GREEN"};
    long samples = -1;
    double seconds = 10.0;
    long interval_ms = 100;
    int matched = 1;
    long linger_ms = 1000;
    bool cft = false;
    std::string expression;
    std::vector<std::string> parameters;
    bool best_effort = false;
    int depth = 10;               // -k: history depth, 0 = KEEP_ALL
    // -D v|t|T|P: VOLATILE, TRANSIENT_LOCAL, TRANSIENT, PERSISTENT
    DurabilityQosPolicyKind durability = VOLATILE_DURABILITY_QOS;
    bool typeinfo = true;
    bool type_lookup = false;    // --type-lookup
    long payload = 0;            // -z
    std::string partition;       // -P
    std::string persistence;     // --persistence FILE: Fast DDS's SQLite persistence plugin
    std::vector<std::pair<std::string, std::string>> properties; // --property NAME=VALUE
    std::string presentation;    // -A
    std::string dispose_color;   // -x
    std::string unregister_color; // -u
    bool autodispose = true;     // -a
    long want_states = 0;        // -w
    long multicast_port = 0;     // -M PORT,UNICAST_PORT: user data on 239.255.0.1:PORT
    long unicast_port = 0;       //   and 127.0.0.1:UNICAST_PORT (participant defaults)
    long flow_readers = 0;       // -N
    double flow_seconds = 0;     // -F
};

// -A SPEC: access scope letter, then 'c' and/or 'o'; empty SPEC leaves the default.
static void set_presentation(PresentationQosPolicy& p, const std::string& spec)
{
    if (spec.empty())
    {
        return;
    }
    p.access_scope = spec[0] == 'g' ? GROUP_PRESENTATION_QOS
                   : spec[0] == 't' ? TOPIC_PRESENTATION_QOS : INSTANCE_PRESENTATION_QOS;
    p.coherent_access = spec.find('c') != std::string::npos;
    p.ordered_access = spec.find('o') != std::string::npos;
    p.hasChanged = true;
}

static void usage()
{
    std::fprintf(stderr,
            "usage: shapes_fastdds pub|sub [-d DOMAIN] [-T TOPIC] [-c RED,BLUE] [-n N] [-t SECONDS]\n"
            "       [-i MS] [-m MATCHED] [-l MS] [--cft] [-f EXPR] [-p PARAM]... [-b] [-k DEPTH] [-D v|t|T|P] [--persistence FILE]\n"
            "       [--property NAME=VALUE]...\n"
            "       [--no-typeinfo] [--type-lookup] [-z BYTES] [-P PARTITION] [-x COLOR] [-u COLOR] [-A i|t|g[c][o]] [-w N]\n"
            "       [-M MULTICAST_PORT,UNICAST_PORT]\n");
    std::exit(2);
}

static std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

static Options parse(int argc, char** argv)
{
    Options o;
    if (argc < 2)
    {
        usage();
    }
    o.mode = argv[1];
    if (o.mode != "pub" && o.mode != "sub")
    {
        usage();
    }
    for (int i = 2; i < argc; ++i)
    {
        std::string a = argv[i];
        auto val = [&]() -> std::string {
                    if (i + 1 >= argc)
                    {
                        usage();
                    }
                    return argv[++i];
                };
        if (a == "-d")
        {
            o.domain = std::stoul(val());
        }
        else if (a == "-T")
        {
            o.topic = val();
        }
        else if (a == "-c")
        {
            o.colors = split(val(), ',');
        }
        else if (a == "-n")
        {
            o.samples = std::stol(val());
        }
        else if (a == "-t")
        {
            o.seconds = std::stod(val());
        }
        else if (a == "-i")
        {
            o.interval_ms = std::stol(val());
        }
        else if (a == "-m")
        {
            o.matched = std::stoi(val());
        }
        else if (a == "-l")
        {
            o.linger_ms = std::stol(val());
        }
        else if (a == "--cft")
        {
            o.cft = true;
        }
        else if (a == "-f")
        {
            o.expression = val();
        }
        else if (a == "-p")
        {
            o.parameters.push_back(val());
        }
        else if (a == "-b")
        {
            o.best_effort = true;
        }
        else if (a == "-k")
        {
            o.depth = std::atoi(val().c_str());
        }
        else if (a == "-D")
        {
            const std::string d = val();
            o.durability = d == "t" ? TRANSIENT_LOCAL_DURABILITY_QOS : d == "T" ? TRANSIENT_DURABILITY_QOS
                    : d == "P" ? PERSISTENT_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
        }
        else if (a == "-z")
        {
            o.payload = std::stol(val());
        }
        else if (a == "--persistence")
        {
            o.persistence = val();
        }
        else if (a == "--property")
        {
            std::string nv = val();
            auto eq = nv.find('=');
            if (eq == std::string::npos)
            {
                usage();
            }
            o.properties.emplace_back(nv.substr(0, eq), nv.substr(eq + 1));
        }
        else if (a == "-P")
        {
            o.partition = val();
        }
        else if (a == "-A")
        {
            o.presentation = val();
        }
        else if (a == "-x")
        {
            o.dispose_color = val();
        }
        else if (a == "-u")
        {
            o.unregister_color = val();
        }
        else if (a == "-a")
        {
            o.autodispose = std::stol(val()) != 0;
        }
        else if (a == "-w")
        {
            o.want_states = std::stol(val());
        }
        else if (a == "-M")
        {
            std::vector<std::string> ports = split(val(), ',');
            if (ports.size() != 2)
            {
                usage();
            }
            o.multicast_port = std::stol(ports[0]);
            o.unicast_port = std::stol(ports[1]);
        }
        else if (a == "-N")
        {
            o.flow_readers = std::stol(val());
            o.colors.clear();
            for (long c = 0; c < o.flow_readers; ++c)
            {
                o.colors.push_back("C" + std::to_string(c));
            }
        }
        else if (a == "-F")
        {
            o.flow_seconds = std::stod(val());
        }
        else if (a == "--no-typeinfo")
        {
            o.typeinfo = false;
        }
        else if (a == "--type-lookup")
        {
            o.type_lookup = true;
        }
        else
        {
            usage();
        }
    }
    if (o.cft && o.expression.empty())
    {
        o.expression = "color = %0";
        if (o.parameters.empty())
        {
            o.parameters.push_back("'RED'");
        }
    }
    if (o.samples < 0)
    {
        o.samples = (o.mode == "pub") ? 30 : 0;
    }
    if (o.colors.empty())
    {
        usage();
    }
    return o;
}

class PubListener : public DataWriterListener
{
public:

    std::atomic<int> matched{0};

    void on_publication_matched(
            DataWriter*,
            const PublicationMatchedStatus& info) override
    {
        matched = info.current_count;
        std::printf("pub: matched readers %d\n", info.current_count);
        std::fflush(stdout);
    }

    void on_offered_incompatible_qos(
            DataWriter*,
            const OfferedIncompatibleQosStatus& status) override
    {
        std::printf("pub: offered incompatible qos total=%d policy=%u\n", status.total_count,
                static_cast<unsigned>(status.last_policy_id));
        std::fflush(stdout);
    }

};

class SubListener : public DataReaderListener
{
public:

    std::atomic<long> received{0};
    std::atomic<long> states{0};
    std::map<InstanceHandle_t, std::string> colors;

    void on_requested_incompatible_qos(
            DataReader*,
            const RequestedIncompatibleQosStatus& status) override
    {
        std::printf("sub: requested incompatible qos total=%d policy=%u\n", status.total_count,
                static_cast<unsigned>(status.last_policy_id));
        std::fflush(stdout);
    }

    void on_subscription_matched(
            DataReader*,
            const SubscriptionMatchedStatus& info) override
    {
        std::printf("sub: matched writers %d\n", info.current_count);
        std::fflush(stdout);
    }

    void on_data_available(
            DataReader* reader) override
    {
        ShapeType s;
        SampleInfo info;
        while (reader->take_next_sample(&s, &info) == ReturnCode_t::RETCODE_OK)
        {
            if (info.valid_data)
            {
                colors[info.instance_handle] = s.color();
                long n = ++received;
                std::printf("sub: %ld %s x=%d y=%d size=%d payload=%zu\n", n, s.color().c_str(), s.x(), s.y(),
                        s.shapesize(), s.additional_payload_size().size());
                std::fflush(stdout);
            }
            if (!info.valid_data || info.instance_state != ALIVE_INSTANCE_STATE)
            {
                // An invalid sample, or a valid one taken after its instance changed state.
                std::string color;
                auto it = colors.find(info.instance_handle);
                if (it != colors.end())
                {
                    color = it->second;
                }
                else
                {
                    char hex[3];
                    for (size_t b = 0; b < 16; ++b)
                    {
                        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned>(info.instance_handle.value[b]));
                        color += hex;
                    }
                }
                const char* st = info.instance_state == NOT_ALIVE_DISPOSED_INSTANCE_STATE ? "NOT_ALIVE_DISPOSED"
                        : info.instance_state == NOT_ALIVE_NO_WRITERS_INSTANCE_STATE ? "NOT_ALIVE_NO_WRITERS"
                        : "ALIVE";
                ++states;
                std::printf("sub: instance %s %s\n", color.c_str(), st);
                std::fflush(stdout);
            }
        }
    }

};

// User + system CPU seconds of this process.
static double cpu_seconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// A listener that only counts valid samples (flow bench readers, -N).
class CountListener : public DataReaderListener
{
public:

    std::atomic<long>* total;

    void on_data_available(
            DataReader* reader) override
    {
        ShapeType s;
        SampleInfo info;
        while (reader->take_next_sample(&s, &info) == ReturnCode_t::RETCODE_OK)
        {
            if (info.valid_data)
            {
                ++*total;
            }
        }
    }

};

// -F: write flat out for o.flow_seconds, then drain; one summary line.
static void flow_publish(
        const Options& o,
        DataWriter* writer)
{
    ShapeType s;
    s.shapesize(30);
    std::vector<uint8_t> buf(static_cast<size_t>(o.payload));
    for (size_t k = 0; k < buf.size(); ++k)
    {
        buf[k] = static_cast<uint8_t>(k);
    }
    s.additional_payload_size(buf);
    const double cpu0 = cpu_seconds();
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::milliseconds(static_cast<long>(o.flow_seconds * 1000));
    long written = 0;
    long failed = 0;
    long blocked = 0;
    while (!g_stop && Clock::now() < end)
    {
        s.color(o.colors[written % o.colors.size()]);
        s.x(static_cast<int32_t>(written));
        const auto w0 = Clock::now();
        if (writer->write(&s))
        {
            ++written;
        }
        else
        {
            ++failed;
        }
        if (Clock::now() - w0 >= std::chrono::milliseconds(100))
        {
            ++blocked;
        }
    }
    const double write_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto t1 = Clock::now();
    eprosima::fastrtps::Duration_t max_wait(30, 0);
    const bool drained = writer->wait_for_acknowledgments(max_wait) == ReturnCode_t::RETCODE_OK;
    const double drain_s = std::chrono::duration<double>(Clock::now() - t1).count();
    const double cpu = cpu_seconds() - cpu0;
    std::printf("summary: writer=fastdds readers=%zu written=%ld write_s=%.2f rate=%.0f cpu_us_per_sample=%.1f "
            "drain_s=%.2f drained=%s blocked=%ld failed=%ld\n", o.colors.size(), written, write_s,
            static_cast<double>(written) / (write_s + drain_s), cpu * 1e6 / static_cast<double>(written > 0 ? written : 1),
            drain_s, drained ? "true" : "false", blocked, failed);
    std::fflush(stdout);
}

static bool time_left(
        Clock::time_point deadline)
{
    return !g_stop && Clock::now() < deadline;
}

int main(
        int argc,
        char** argv)
{
    Options o = parse(argc, argv);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(o.seconds * 1000));

    // TypeObjects are needed by the DDSSQL filter factory (reader and writer side).
    registerShapeTypeTypes();

    DomainParticipantQos pqos = PARTICIPANT_QOS_DEFAULT;
    // Fast DDS 2.9 creates TRANSIENT endpoints only with its persistence plugin and a
    // persistence GUID per endpoint (docs/interop-facts.md, durability).
    if (!o.persistence.empty())
    {
        pqos.properties().properties().emplace_back("dds.persistence.plugin", "builtin.SQLITE3");
        pqos.properties().properties().emplace_back("dds.persistence.sqlite3.filename", o.persistence);
    }
    for (const auto& p : o.properties)
    {
        pqos.properties().properties().emplace_back(p.first, p.second);
    }
    pqos.name(o.mode == "pub" ? "shapes_fastdds_pub" : "shapes_fastdds_sub");
    // The TypeLookup builtin endpoints (BuiltinEndpointSet bits 12-15), off by default.
    pqos.wire_protocol().builtin.typelookup_config.use_server = o.type_lookup;
    pqos.wire_protocol().builtin.typelookup_config.use_client = o.type_lookup;
    pqos.transport().use_builtin_transports = false;
    auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
    pqos.transport().user_transports.push_back(udp);
    if (o.multicast_port > 0)
    {
        // User data on a multicast group as well (every endpoint inherits the participant's
        // default locators): Fast DDS then does not filter for this reader on its own writers.
        eprosima::fastrtps::rtps::Locator_t mc;
        eprosima::fastrtps::rtps::IPLocator::setIPv4(mc, 239, 255, 0, 1);
        mc.port = static_cast<uint32_t>(o.multicast_port);
        pqos.wire_protocol().default_multicast_locator_list.push_back(mc);
        eprosima::fastrtps::rtps::Locator_t uc;
        eprosima::fastrtps::rtps::IPLocator::setIPv4(uc, 127, 0, 0, 1);
        uc.port = static_cast<uint32_t>(o.unicast_port);
        pqos.wire_protocol().default_unicast_locator_list.push_back(uc);
    }

    DomainParticipant* participant =
            DomainParticipantFactory::get_instance()->create_participant(o.domain, pqos);
    if (participant == nullptr)
    {
        std::fprintf(stderr, "create_participant failed\n");
        return 1;
    }
    TypeSupport type(new ShapeTypePubSubType());
    type->auto_fill_type_information(o.typeinfo);
    type->auto_fill_type_object(o.typeinfo);
    if (type.register_type(participant) != ReturnCode_t::RETCODE_OK)
    {
        std::fprintf(stderr, "register_type failed\n");
        return 1;
    }
    Topic* topic = participant->create_topic(o.topic, type.get_type_name(), TOPIC_QOS_DEFAULT);
    if (topic == nullptr)
    {
        std::fprintf(stderr, "create_topic failed\n");
        return 1;
    }

    int rc = 0;
    if (o.mode == "pub")
    {
        PublisherQos pubqos = PUBLISHER_QOS_DEFAULT;
        if (!o.partition.empty())
        {
            pubqos.partition().push_back(o.partition.c_str());
        }
        set_presentation(pubqos.presentation(), o.presentation);
        Publisher* publisher = participant->create_publisher(pubqos);
        DataWriterQos wqos = DATAWRITER_QOS_DEFAULT;
        wqos.reliability().kind = o.best_effort ? BEST_EFFORT_RELIABILITY_QOS : RELIABLE_RELIABILITY_QOS;
        wqos.durability().kind = o.durability;
        wqos.writer_data_lifecycle().autodispose_unregistered_instances = o.autodispose;
        wqos.history().kind = o.depth == 0 ? KEEP_ALL_HISTORY_QOS : KEEP_LAST_HISTORY_QOS;
        wqos.history().depth = o.depth == 0 ? 1 : o.depth;
        if (o.depth == 0)
        {
            wqos.resource_limits().max_samples = 64 * 25000; // ≥ max_instances × max_samples_per_instance
            // The 32-colour filtering reference (cft_reference.rs); the flow bench's colours.
            wqos.resource_limits().max_instances = static_cast<int32_t>(std::max<size_t>(64, o.colors.size()));
            wqos.resource_limits().max_samples = wqos.resource_limits().max_instances * 25000;
            wqos.resource_limits().max_samples_per_instance = 25000;
        }
        if (!o.persistence.empty())
        {
            wqos.properties().properties().emplace_back("dds.persistence.guid",
                    "73.68.61.70.65.73.5f.66.61.73.74.64|00.00.01.02");
        }
        PubListener listener;
        DataWriter* writer = publisher->create_datawriter(topic, wqos, &listener);
        if (writer == nullptr)
        {
            std::fprintf(stderr, "create_datawriter failed\n");
            return 1;
        }
        while (time_left(deadline) && listener.matched < o.matched)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        // Give the reader's side a moment to finish matching us too.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        long written = 0;
        if (o.flow_seconds > 0)
        {
            flow_publish(o, writer);
            participant->delete_contained_entities();
            DomainParticipantFactory::get_instance()->delete_participant(participant);
            return 0;
        }
        while (time_left(deadline) && written < o.samples)
        {
            ShapeType s;
            const std::string& color = o.colors[written % o.colors.size()];
            s.color(color);
            s.x(static_cast<int32_t>(10 + 5 * written));
            s.y(static_cast<int32_t>(20 + 3 * written));
            s.shapesize(30);
            std::vector<uint8_t> buf(static_cast<size_t>(o.payload));
            for (size_t k = 0; k < buf.size(); ++k)
            {
                buf[k] = static_cast<uint8_t>(k);
            }
            s.additional_payload_size(std::move(buf));
            if (writer->write(&s))
            {
                ++written;
                std::printf("pub: %ld %s x=%d y=%d size=%d payload=%ld\n", written, color.c_str(), s.x(), s.y(),
                        s.shapesize(), o.payload);
                std::fflush(stdout);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(o.interval_ms));
        }
        if (!g_stop && !o.dispose_color.empty())
        {
            ShapeType k;
            k.color(o.dispose_color);
            auto ret = writer->dispose(&k, HANDLE_NIL);
            std::printf("pub: dispose %s: %s\n", o.dispose_color.c_str(), ret == ReturnCode_t::RETCODE_OK ? "OK" : "failed");
            std::fflush(stdout);
        }
        if (!g_stop && !o.unregister_color.empty())
        {
            ShapeType k;
            k.color(o.unregister_color);
            auto ret = writer->unregister_instance(&k, HANDLE_NIL);
            std::printf("pub: unregister %s: %s\n", o.unregister_color.c_str(), ret == ReturnCode_t::RETCODE_OK ? "OK" : "failed");
            std::fflush(stdout);
        }
        if (!g_stop)
        {
            // Every matched reliable reader acknowledges what was written before the writer
            // goes (100 KB samples can take seconds on a loaded machine): up to 10 s, in
            // steps, so a signal still ends it at once.
            const auto ack_end = Clock::now() + std::chrono::seconds(10);
            const eprosima::fastrtps::Duration_t step(0, 200000000);
            while (!g_stop && Clock::now() < ack_end &&
                   writer->wait_for_acknowledgments(step) != ReturnCode_t::RETCODE_OK)
            {
            }
            auto linger_end = Clock::now() + std::chrono::milliseconds(o.linger_ms);
            while (!g_stop && Clock::now() < linger_end)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        }
        std::printf("pub: wrote %ld samples\n", written);
        rc = (written == o.samples) ? 0 : 3;
        participant->delete_contained_entities();
    }
    else
    {
        SubscriberQos subqos = SUBSCRIBER_QOS_DEFAULT;
        if (!o.partition.empty())
        {
            subqos.partition().push_back(o.partition.c_str());
        }
        set_presentation(subqos.presentation(), o.presentation);
        Subscriber* subscriber = participant->create_subscriber(subqos);
        TopicDescription* description = topic;
        if (!o.expression.empty())
        {
            ContentFilteredTopic* cft = participant->create_contentfilteredtopic(
                o.topic + "Filtered", topic, o.expression, o.parameters);
            if (cft == nullptr)
            {
                std::fprintf(stderr, "create_contentfilteredtopic failed\n");
                return 1;
            }
            description = cft;
            std::printf("sub: content filter \"%s\"", o.expression.c_str());
            for (const auto& p : o.parameters)
            {
                std::printf(" [%s]", p.c_str());
            }
            std::printf("\n");
        }
        DataReaderQos rqos = DATAREADER_QOS_DEFAULT;
        rqos.reliability().kind = o.best_effort ? BEST_EFFORT_RELIABILITY_QOS : RELIABLE_RELIABILITY_QOS;
        rqos.durability().kind = o.durability;
        rqos.history().kind = o.depth == 0 ? KEEP_ALL_HISTORY_QOS : KEEP_LAST_HISTORY_QOS;
        rqos.history().depth = o.depth == 0 ? 1 : o.depth;
        if (o.depth == 0)
        {
            rqos.resource_limits().max_samples = 100000;
            rqos.resource_limits().max_instances = 4;
            rqos.resource_limits().max_samples_per_instance = 25000;
        }
        if (!o.persistence.empty())
        {
            rqos.properties().properties().emplace_back("dds.persistence.guid",
                    "73.68.61.70.65.73.5f.66.61.73.74.64|00.00.01.07");
        }
        if (o.flow_readers > 0)
        {
            // -N: the flow bench's filtered readers, counted together.
            std::atomic<long> total{0};
            std::vector<std::unique_ptr<CountListener>> listeners;
            for (long c = 0; c < o.flow_readers; ++c)
            {
                std::vector<std::string> params{"'C" + std::to_string(c) + "'"};
                ContentFilteredTopic* cft = participant->create_contentfilteredtopic(
                    o.topic + "Filtered" + std::to_string(c), topic, "color = %0", params);
                listeners.emplace_back(new CountListener());
                listeners.back()->total = &total;
                if (cft == nullptr || subscriber->create_datareader(cft, rqos, listeners.back().get()) == nullptr)
                {
                    std::fprintf(stderr, "flow reader %ld failed\n", c);
                    return 1;
                }
            }
            std::printf("sub: %ld filtered readers\n", o.flow_readers);
            std::fflush(stdout);
            while (time_left(deadline))
            {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            std::printf("sub: received total %ld\n", total.load());
            std::fflush(stdout);
            participant->delete_contained_entities();
            DomainParticipantFactory::get_instance()->delete_participant(participant);
            return 0;
        }
        SubListener listener;
        DataReader* reader = subscriber->create_datareader(description, rqos, &listener);
        if (reader == nullptr)
        {
            std::fprintf(stderr, "create_datareader failed\n");
            return 1;
        }
        while (time_left(deadline) && ((o.samples == 0 && o.want_states == 0) || listener.received < o.samples
                || listener.states < o.want_states))
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        std::printf("sub: received %ld samples\n", listener.received.load());
        rc = (o.samples == 0 || listener.received >= o.samples) && listener.states >= o.want_states ? 0 : 3;
        participant->delete_contained_entities();
    }
    DomainParticipantFactory::get_instance()->delete_participant(participant);
    return rc;
}
