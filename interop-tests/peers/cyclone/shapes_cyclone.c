/* Cyclone DDS 0.10 shapes peer for siftdds interop captures and tests.
 *
 *   shapes_cyclone pub [options]    write ShapeType (@final, XCDR1) samples on topic "Square"
 *   shapes_cyclone sub [options]    read them
 *
 * Options:
 *   -d DOMAIN    domain id (default 0)
 *   -T TOPIC     topic name (default "Square")
 *   -c COLORS    pub: comma-separated colours written round-robin (default RED,BLUE,GREEN)
 *   -n N         pub: samples to write (default 30); sub: exit after N samples (default 0 = no limit)
 *   -t SECONDS   exit after this many seconds (default 10)
 *   -i MS        pub: interval between samples (default 100)
 *   -m N         pub: wait for N matched readers before writing (default 1)
 *   -l MS        pub: linger after the last sample before exiting (default 1000)
 *   -b           best-effort instead of reliable
 *   -k DEPTH     history depth (default 10; 0 = KEEP_ALL)
 *   -D v|t|T|P   durability VOLATILE (default), TRANSIENT_LOCAL, TRANSIENT or PERSISTENT
 *   -z BYTES     pub: fill additional_payload_size with BYTES octets (default 0)
 *   -P PARTITION publisher/subscriber partition (default: the default partition)
 *   -x COLOR     pub: after the last sample, dispose COLOR's instance
 *   -u COLOR     pub: after the last sample (and -x), unregister COLOR's instance
 *   -a 0|1       pub: WRITER_DATA_LIFECYCLE autodispose_unregistered_instances (default 1; with
 *                0 an unregister, -u or the writer's deletion, does not dispose)
 *   -w N         sub: also wait for N instance state changes (invalid samples) before exiting
 *   -A SPEC      PRESENTATION of the publisher/subscriber: access scope i|t|g, then c (coherent
 *                access) and/or o (ordered access), e.g. "tc" (Cyclone 0.10 announces and matches
 *                it; it has no coherent sets: dds_begin_coherent is unimplemented)
 *   -L MS        liveliness AUTOMATIC with this lease in ms (default: infinite lease); the sub
 *                prints "sub: liveliness alive=<a> not_alive=<n>" when LIVELINESS_CHANGED fires
 *
 * The sub prints "sub: <k> <color> x=.. y=.. size=.. payload=<len>" per valid sample and
 * "sub: instance <color> NOT_ALIVE_DISPOSED|NOT_ALIVE_NO_WRITERS" per invalid one, and after a
 * valid one taken when its instance is no longer alive (-w counts these lines). Both print
 * "pub|sub: offered|requested incompatible qos total=<n> policy=<id>" when that status changes.
 * A pub with -m 0 writes at once (e.g. TRANSIENT_LOCAL history for late joiners) and -l keeps
 * it alive for them afterwards.
 *
 * Built twice: shapes_cyclone (@final ShapeType, XCDR1) and shapes_cyclone_x2 (SHAPES_X2: the
 * @appendable ShapeTypeX2.idl with DATA_REPRESENTATION XCDR2, so samples and dispose/unregister
 * key payloads are D_CDR2).
 *
 * Reliable, volatile, keep-last 10. Exits on SIGINT/SIGTERM. Transport configuration (UDPv4
 * only by default for this Debian build) comes from CYCLONEDDS_URI as usual.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#ifdef SHAPES_X2
/* shapes_cyclone_x2: @appendable ShapeType, DATA_REPRESENTATION XCDR2 (D_CDR2 on the wire) */
#include "ShapeTypeX2.h"
#else
#include "ShapeType.h"
#endif

static volatile sig_atomic_t g_stop = 0;

static void on_signal (int sig)
{
  (void) sig;
  g_stop = 1;
}

static void usage (void)
{
  fprintf (stderr,
           "usage: shapes_cyclone pub|sub [-d DOMAIN] [-T TOPIC] [-c RED,BLUE] [-n N] [-t SECONDS]\n"
           "       [-i MS] [-m MATCHED] [-l MS] [-b] [-k DEPTH] [-D v|t|T|P] [-z BYTES] [-P PARTITION]\n"
           "       [-x COLOR] [-u COLOR] [-w N] [-L LEASE_MS] [-A i|t|g[c][o]]\n");
  exit (2);
}

#define MAX_COLORS 16

static void on_offered_incompatible_qos (dds_entity_t writer, const dds_offered_incompatible_qos_status_t status, void *arg)
{
  (void) writer; (void) arg;
  printf ("pub: offered incompatible qos total=%u policy=%u\n", status.total_count, (unsigned) status.last_policy_id);
  fflush (stdout);
}

static void on_requested_incompatible_qos (dds_entity_t reader, const dds_requested_incompatible_qos_status_t status, void *arg)
{
  (void) reader; (void) arg;
  printf ("sub: requested incompatible qos total=%u policy=%u\n", status.total_count, (unsigned) status.last_policy_id);
  fflush (stdout);
}

static void on_liveliness_changed (dds_entity_t reader, const dds_liveliness_changed_status_t status, void *arg)
{
  (void) reader; (void) arg;
  printf ("sub: liveliness alive=%u not_alive=%u\n", status.alive_count, status.not_alive_count);
  fflush (stdout);
}

static void make_key_sample (ShapeType *s, const char *color)
{
  memset (s, 0, sizeof (*s));
  strncpy (s->color, color, sizeof (s->color) - 1);
}

int main (int argc, char **argv)
{
  if (argc < 2 || (strcmp (argv[1], "pub") != 0 && strcmp (argv[1], "sub") != 0))
    usage ();
  const int is_pub = strcmp (argv[1], "pub") == 0;
  dds_domainid_t domain = 0;
  const char *topic_name = "Square";
  char colors_buf[512] = "RED,BLUE,GREEN";
  long samples = -1;
  double seconds = 10.0;
  long interval_ms = 100;
  int want_matched = 1;
  long linger_ms = 1000;
  int best_effort = 0;
  int depth = 10;          /* -k: history depth, 0 = KEEP_ALL */
  dds_durability_kind_t durability = DDS_DURABILITY_VOLATILE; /* -D */
  long payload = 0;        /* -z */
  const char *partition = NULL;
  const char *dispose_color = NULL;
  const char *unregister_color = NULL;
  int autodispose = 1;     /* -a */
  long want_states = 0;
  long lease_ms = -1;      /* -L: AUTOMATIC liveliness lease, -1 = infinite */
  const char *presentation = NULL; /* -A */

  for (int i = 2; i < argc; i++)
  {
    const char *a = argv[i];
    if (strcmp (a, "-b") == 0) { best_effort = 1; continue; }
    if (i + 1 >= argc) usage ();
    const char *v = argv[++i];
    if (strcmp (a, "-d") == 0) domain = (dds_domainid_t) strtoul (v, NULL, 10);
    else if (strcmp (a, "-T") == 0) topic_name = v;
    else if (strcmp (a, "-c") == 0) { strncpy (colors_buf, v, sizeof (colors_buf) - 1); colors_buf[sizeof (colors_buf) - 1] = 0; }
    else if (strcmp (a, "-n") == 0) samples = strtol (v, NULL, 10);
    else if (strcmp (a, "-t") == 0) seconds = strtod (v, NULL);
    else if (strcmp (a, "-i") == 0) interval_ms = strtol (v, NULL, 10);
    else if (strcmp (a, "-m") == 0) want_matched = atoi (v);
    else if (strcmp (a, "-l") == 0) linger_ms = strtol (v, NULL, 10);
    else if (strcmp (a, "-k") == 0) depth = atoi (v);
    else if (strcmp (a, "-D") == 0)
      durability = v[0] == 't' ? DDS_DURABILITY_TRANSIENT_LOCAL : v[0] == 'T' ? DDS_DURABILITY_TRANSIENT
                   : v[0] == 'P' ? DDS_DURABILITY_PERSISTENT : DDS_DURABILITY_VOLATILE;
    else if (strcmp (a, "-z") == 0) payload = strtol (v, NULL, 10);
    else if (strcmp (a, "-P") == 0) partition = v;
    else if (strcmp (a, "-x") == 0) dispose_color = v;
    else if (strcmp (a, "-u") == 0) unregister_color = v;
    else if (strcmp (a, "-a") == 0) autodispose = atoi (v) != 0;
    else if (strcmp (a, "-w") == 0) want_states = strtol (v, NULL, 10);
    else if (strcmp (a, "-L") == 0) lease_ms = strtol (v, NULL, 10);
    else if (strcmp (a, "-A") == 0) presentation = v;
    else usage ();
  }
  if (samples < 0)
    samples = is_pub ? 30 : 0;

  char *colors[MAX_COLORS];
  int ncolors = 0;
  for (char *tok = strtok (colors_buf, ","); tok != NULL && ncolors < MAX_COLORS; tok = strtok (NULL, ","))
    if (*tok)
      colors[ncolors++] = tok;
  if (ncolors == 0)
    usage ();

  signal (SIGINT, on_signal);
  signal (SIGTERM, on_signal);
  const dds_time_t deadline = dds_time () + (dds_duration_t) (seconds * 1e9);

  dds_entity_t participant = dds_create_participant (domain, NULL, NULL);
  if (participant < 0)
  {
    fprintf (stderr, "dds_create_participant: %s\n", dds_strretcode (-participant));
    return 1;
  }
  dds_entity_t topic = dds_create_topic (participant, &ShapeType_desc, topic_name, NULL, NULL);
  if (topic < 0)
  {
    fprintf (stderr, "dds_create_topic: %s\n", dds_strretcode (-topic));
    return 1;
  }
  dds_qos_t *qos = dds_create_qos ();
  dds_qset_reliability (qos, best_effort ? DDS_RELIABILITY_BEST_EFFORT : DDS_RELIABILITY_RELIABLE, DDS_SECS (1));
  dds_qset_durability (qos, durability);
  dds_qset_writer_data_lifecycle (qos, autodispose);
  if (lease_ms >= 0)
    dds_qset_liveliness (qos, DDS_LIVELINESS_AUTOMATIC, DDS_MSECS (lease_ms));
  if (depth == 0)
    dds_qset_history (qos, DDS_HISTORY_KEEP_ALL, 0);
  else
    dds_qset_history (qos, DDS_HISTORY_KEEP_LAST, depth);
  /* Cyclone keeps DURABILITY_SERVICE.history (default KEEP_LAST 1) for late joiners of a
     TRANSIENT_LOCAL writer, not HISTORY: make it the same as -k. */
  if (durability != DDS_DURABILITY_VOLATILE)
    dds_qset_durability_service (qos, 0, depth == 0 ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST, depth == 0 ? 1 : depth,
                                 DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);

#ifdef SHAPES_X2
  dds_qset_data_representation (qos, 1, (const dds_data_representation_id_t[]) { DDS_DATA_REPRESENTATION_XCDR2 });
#endif

  dds_qos_t *group_qos = dds_create_qos ();
  if (partition != NULL)
    dds_qset_partition1 (group_qos, partition);
  if (presentation != NULL)
  {
    dds_presentation_access_scope_kind_t scope =
      presentation[0] == 'g' ? DDS_PRESENTATION_GROUP : presentation[0] == 't' ? DDS_PRESENTATION_TOPIC : DDS_PRESENTATION_INSTANCE;
    dds_qset_presentation (group_qos, scope, strchr (presentation, 'c') != NULL, strchr (presentation, 'o') != NULL);
  }
  dds_listener_t *listener = dds_create_listener (NULL);
  dds_lset_offered_incompatible_qos (listener, on_offered_incompatible_qos);
  dds_lset_requested_incompatible_qos (listener, on_requested_incompatible_qos);
  if (lease_ms >= 0)
    dds_lset_liveliness_changed (listener, on_liveliness_changed);

  int rc = 0;
  if (is_pub)
  {
    dds_entity_t publisher = dds_create_publisher (participant, group_qos, NULL);
    if (publisher < 0)
    {
      fprintf (stderr, "dds_create_publisher: %s\n", dds_strretcode (-publisher));
      return 1;
    }
    unsigned char *buf = payload > 0 ? calloc ((size_t) payload, 1) : NULL;
    for (long k = 0; k < payload; k++)
      buf[k] = (unsigned char) k;
    dds_entity_t writer = dds_create_writer (publisher, topic, qos, listener);
    if (writer < 0)
    {
      fprintf (stderr, "dds_create_writer: %s\n", dds_strretcode (-writer));
      return 1;
    }
    dds_set_status_mask (writer, DDS_PUBLICATION_MATCHED_STATUS);
    dds_publication_matched_status_t pm = { 0 };
    while (!g_stop && dds_time () < deadline)
    {
      dds_get_publication_matched_status (writer, &pm);
      if ((int) pm.current_count >= want_matched)
        break;
      dds_sleepfor (DDS_MSECS (50));
    }
    printf ("pub: matched readers %u\n", pm.current_count);
    fflush (stdout);
    /* let the remote reader finish matching us as well */
    dds_sleepfor (DDS_MSECS (300));
    long written = 0;
    while (!g_stop && dds_time () < deadline && written < samples)
    {
      ShapeType s;
      memset (&s, 0, sizeof (s));
      /* string<128> maps to char[129] */
      strncpy (s.color, colors[written % ncolors], sizeof (s.color) - 1);
      s.x = (int32_t) (10 + 5 * written);
      s.y = (int32_t) (20 + 3 * written);
      s.shapesize = 30;
      s.additional_payload_size._length = s.additional_payload_size._maximum = (uint32_t) payload;
      s.additional_payload_size._buffer = buf;
      s.additional_payload_size._release = false;
      dds_return_t ret = dds_write (writer, &s);
      if (ret == DDS_RETCODE_OK)
      {
        written++;
        printf ("pub: %ld %s x=%d y=%d size=%d payload=%ld\n", written, s.color, s.x, s.y, s.shapesize, payload);
        fflush (stdout);
      }
      else
      {
        fprintf (stderr, "dds_write: %s\n", dds_strretcode (-ret));
      }
      dds_sleepfor (DDS_MSECS (interval_ms));
    }
    if (!g_stop && dispose_color != NULL)
    {
      ShapeType k;
      make_key_sample (&k, dispose_color);
      dds_return_t ret = dds_dispose (writer, &k);
      printf ("pub: dispose %s: %s\n", dispose_color, dds_strretcode (-ret));
      fflush (stdout);
    }
    if (!g_stop && unregister_color != NULL)
    {
      ShapeType k;
      make_key_sample (&k, unregister_color);
      dds_return_t ret = dds_unregister_instance (writer, &k);
      printf ("pub: unregister %s: %s\n", unregister_color, dds_strretcode (-ret));
      fflush (stdout);
    }
    if (!g_stop)
    {
      (void) dds_wait_for_acks (writer, DDS_SECS (2));
      const dds_time_t linger_end = dds_time () + DDS_MSECS (linger_ms);
      while (!g_stop && dds_time () < linger_end)
        dds_sleepfor (DDS_MSECS (50));
    }
    printf ("pub: wrote %ld samples\n", written);
    fflush (stdout);
    free (buf);
    rc = (written == samples) ? 0 : 3;
  }
  else
  {
    dds_entity_t subscriber = dds_create_subscriber (participant, group_qos, NULL);
    if (subscriber < 0)
    {
      fprintf (stderr, "dds_create_subscriber: %s\n", dds_strretcode (-subscriber));
      return 1;
    }
    dds_entity_t reader = dds_create_reader (subscriber, topic, qos, listener);
    if (reader < 0)
    {
      fprintf (stderr, "dds_create_reader: %s\n", dds_strretcode (-reader));
      return 1;
    }
    long received = 0;
    long states = 0;
    uint32_t last_matched = 0;
    while (!g_stop && dds_time () < deadline && ((samples == 0 && want_states == 0) || received < samples || states < want_states))
    {
      dds_subscription_matched_status_t sm;
      if (dds_get_subscription_matched_status (reader, &sm) == DDS_RETCODE_OK && sm.current_count != last_matched)
      {
        last_matched = sm.current_count;
        printf ("sub: matched writers %u\n", last_matched);
        fflush (stdout);
      }
      void *ptrs[1] = { NULL };
      dds_sample_info_t infos[1];
      int32_t n;
      while ((n = dds_take (reader, ptrs, infos, 1, 1)) > 0)
      {
        if (infos[0].valid_data)
        {
          const ShapeType *s = ptrs[0];
          received++;
          printf ("sub: %ld %s x=%d y=%d size=%d payload=%u\n", received, s->color, s->x, s->y, s->shapesize,
                  s->additional_payload_size._length);
          fflush (stdout);
        }
        if (!infos[0].valid_data || infos[0].instance_state != DDS_IST_ALIVE)
        {
          /* an invalid sample (only the key fields set), or a valid one taken after the
             instance changed state (the change then needs no invalid sample) */
          const ShapeType *s = ptrs[0];
          const char *st = infos[0].instance_state == DDS_IST_NOT_ALIVE_DISPOSED ? "NOT_ALIVE_DISPOSED"
            : infos[0].instance_state == DDS_IST_NOT_ALIVE_NO_WRITERS ? "NOT_ALIVE_NO_WRITERS" : "ALIVE";
          states++;
          printf ("sub: instance %s %s\n", s->color, st);
          fflush (stdout);
        }
        dds_return_loan (reader, ptrs, n);
        ptrs[0] = NULL;
      }
      dds_sleepfor (DDS_MSECS (20));
    }
    printf ("sub: received %ld samples\n", received);
    rc = (samples == 0 || received >= samples) && states >= want_states ? 0 : 3;
  }
  dds_delete_listener (listener);
  dds_delete_qos (group_qos);
  dds_delete_qos (qos);
  dds_delete (participant);
  return rc;
}
