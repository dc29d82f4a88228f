/**
 * What a schedule's fields mean, in one place for the /v1/schedules request schema and the
 * `schedule` tool's `create` (tools/schedule.ts). A file of its own so the tool, imported at
 * start-up, does not import the routes' schemas with it (issue 33).
 */
export const SCHEDULE_FIELD_TEXT = {
  cron: 'A cron expression, 5 fields (minute hour day month weekday) or 6 with seconds first, read in `timezone`: "0 9 * * 1-5" is 09:00 on weekdays. Give `cron` or `every_seconds`.',
  every_seconds: "Fire every this many seconds from the schedule's creation, instead of `cron`.",
  timezone: 'The IANA time zone `cron` is read in, e.g. "Europe/Berlin"; UTC by default.',
  prompt: "What the agent is asked at each firing (the run's user message).",
  toolsets: "The toolsets the runs may use, within the key's own; all of the key's tools when absent.",
  overlap: "A firing while the previous firing's run still goes on: `skip` it (default), or `queue` it (at most one waits).",
  callback:
    "Also POST each firing's outcome to `url`, signed with the secret named `secret` (SCHEDULE_SECRET_<NAME>) like every toolgate callback; without it the outcome is only stored (the run).",
} as const;
