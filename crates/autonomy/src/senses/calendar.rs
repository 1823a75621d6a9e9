//! The calendar as a sense: iCalendar from a URL or a file. An event becomes a percept a
//! configurable lead time before it starts (once per event and start time), with the start
//! as its due time, so it gains salience as the start approaches.
//!
//! Recurring events (RRULE) are read as their first occurrence only.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use icalendar::{CalendarDateTime, Component, DatePerhapsTime, EventLike};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use super::{Running, Sense, SenseContext, SenseError};
use crate::attention::Attention;
use crate::config::CalendarConfig;
use crate::percept::Percept;

/// One event of a calendar; what its percept keeps in its `data`, under these names and in
/// this order, as it was written before it was typed (the start as RFC 3339), so a spool line
/// either cn wrote reads the same.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Event {
    pub uid: String,
    pub summary: String,
    pub start: Timestamp,
    pub location: Option<String>,
}

/// The events of an iCalendar text that have a usable start.
pub fn events(text: &str) -> Result<Vec<Event>, SenseError> {
    let cal: icalendar::Calendar = text.parse().map_err(|message| SenseError::Parse { message })?;
    Ok(cal
        .events()
        .filter_map(|e| {
            let start = start_of(e.get_start()?)?;
            Some(Event {
                uid: e.get_uid().unwrap_or("").to_string(),
                summary: e.get_summary().unwrap_or("(no title)").to_string(),
                start,
                location: e.get_location().map(str::to_string),
            })
        })
        .collect())
}

fn start_of(d: DatePerhapsTime) -> Option<Timestamp> {
    // icalendar's wall-clock times, to the second, as jiff's: read through their seconds
    // since 1970-01-01T00:00:00 on the same wall clock.
    let civil = |secs: i64| {
        jiff::civil::DateTime::constant(1970, 1, 1, 0, 0, 0, 0).checked_add(SignedDuration::from_secs(secs)).ok()
    };
    match d {
        DatePerhapsTime::DateTime(CalendarDateTime::Utc(t)) => Timestamp::from_second(t.timestamp()).ok(),
        // Floating times and all-day dates follow the local clock.
        DatePerhapsTime::DateTime(CalendarDateTime::Floating(n)) => {
            civil(n.and_utc().timestamp())?.to_zoned(TimeZone::system()).ok().map(|z| z.timestamp())
        }
        DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { date_time, tzid }) => {
            let tz = TimeZone::get(&tzid).unwrap_or_else(|_| TimeZone::system());
            civil(date_time.and_utc().timestamp())?.to_zoned(tz).ok().map(|z| z.timestamp())
        }
        DatePerhapsTime::Date(d) => civil(d.and_hms_opt(0, 0, 0)?.and_utc().timestamp())?
            .to_zoned(TimeZone::system())
            .ok()
            .map(|z| z.timestamp()),
    }
}

/// Events whose announcement time (start − lead) has come but which have not started,
/// and were not announced before; marks them announced.
pub fn due(
    events: &[Event],
    now: Timestamp,
    lead: Duration,
    announced: &mut HashSet<(String, Timestamp)>,
) -> Vec<Percept> {
    let lead = SignedDuration::try_from(lead).unwrap_or(SignedDuration::MAX);
    let mut out = Vec::new();
    for e in events {
        let announce = e.start.checked_sub(lead).unwrap_or(Timestamp::MIN);
        if announce <= now && now < e.start && announced.insert((e.uid.clone(), e.start)) {
            let minutes = now.duration_until(e.start).as_secs() / 60;
            out.push(
                Percept::new(
                    cn_hub::Sense::Calendar,
                    format!("Calendar: {} starts in {minutes} min ({})", e.summary, e.start),
                )
                .key(format!("calendar:{}:{}", e.uid, e.start.as_second()))
                .with_origin(cn_hub::Origin {
                    sense: cn_hub::Sense::Calendar,
                    author: crate::percept::author(cn_hub::Sense::Calendar, false, None),
                    kind: cn_hub::Kind::Event(cn_hub::origin::EventKind::Calendar),
                    thread: None,
                    answer: None,
                })
                .due(e.start)
                .data_of(e),
            );
        }
    }
    out
}

/// When the next not-yet-announced event is due to be announced.
pub fn next_announcement(
    events: &[Event],
    now: Timestamp,
    lead: Duration,
    announced: &HashSet<(String, Timestamp)>,
) -> Option<Timestamp> {
    let lead = SignedDuration::try_from(lead).unwrap_or(SignedDuration::MAX);
    events
        .iter()
        .filter(|e| e.start > now && !announced.contains(&(e.uid.clone(), e.start)))
        .filter_map(|e| e.start.checked_sub(lead).ok())
        .min()
}

/// Where a calendar comes from.
#[derive(Debug, Clone)]
pub enum CalendarSource {
    Url(String),
    File(PathBuf),
}

impl CalendarSource {
    /// `http(s)://…` is a URL; anything else a path relative to the hub's root.
    pub fn parse(source: &str, hub: &cn_hub::Hub) -> Self {
        if source.starts_with("http://") || source.starts_with("https://") {
            CalendarSource::Url(source.to_string())
        } else {
            CalendarSource::File(hub.root().join(source))
        }
    }

    pub async fn read(&self, client: &ureq::Agent) -> Result<String, SenseError> {
        match self {
            CalendarSource::Url(url) => {
                let (client, at) = (client.clone(), url.clone());
                let body = super::fetch(url, move || {
                    let mut resp =
                        client.get(&at).call().map_err(|source| SenseError::Http { url: at.clone(), source })?;
                    if !resp.status().is_success() {
                        return Err(SenseError::Status { url: at, status: resp.status() });
                    }
                    super::read_capped(&mut resp, &at, super::BODY_MAX)
                })
                .await?;
                String::from_utf8(body).map_err(|_| SenseError::Parse { message: format!("{url}: not UTF-8 text") })
            }
            // A calendar file is small; reading it inline is cheaper than a blocking task.
            CalendarSource::File(path) => {
                let read = |source| SenseError::Read { path: path.clone(), source };
                let len = std::fs::metadata(path).map_err(read)?.len();
                if len > super::BODY_MAX as u64 {
                    return Err(SenseError::TooLarge { url: path.display().to_string(), cap: super::BODY_MAX });
                }
                std::fs::read_to_string(path).map_err(read)
            }
        }
    }
}

/// The HTTP client calendars are fetched with: every request bounded by `timeout`.
pub fn client(timeout: Duration) -> Result<ureq::Agent, SenseError> {
    Ok(super::http_client(Some(timeout)))
}

/// One calendar (`senses.calendar[]`) as a [`Sense`].
pub struct CalendarSense {
    source: CalendarSource,
    lead: Duration,
    refresh: Duration,
}

impl CalendarSense {
    pub fn configured(config: &CalendarConfig, hub: &cn_hub::Hub) -> Self {
        CalendarSense { source: CalendarSource::parse(&config.source, hub), lead: config.lead, refresh: config.refresh }
    }
}

impl Sense for CalendarSense {
    fn name(&self) -> &str {
        "calendar"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        ctx.runtime.spawn(run(self.source, self.lead, self.refresh, ctx.attention.clone()));
        Ok(Running::tasks())
    }
}

/// Read the calendar every `refresh`, announce events `lead` before they start.
pub async fn run(source: CalendarSource, lead: Duration, refresh: Duration, attention: Attention) {
    let client = match client(super::FETCH_TIMEOUT) {
        Ok(c) => c,
        Err(e) => return tracing::error!(e = %cn_compute::Chain(&e), "calendar sense stopped"),
    };
    let mut announced = HashSet::new();
    let mut events_now: Vec<Event> = Vec::new();
    let mut next_refresh = tokio::time::Instant::now();
    loop {
        if tokio::time::Instant::now() >= next_refresh {
            match source.read(&client).await.and_then(|t| events(&t)) {
                Ok(evs) => events_now = evs,
                Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "calendar not read; keeping the last copy"),
            }
            next_refresh = tokio::time::Instant::now() + refresh;
        }
        let now = Timestamp::now();
        for p in due(&events_now, now, lead, &mut announced) {
            attention.admit(p);
        }
        // Sleep until the next announcement or refresh, whichever is sooner.
        let until_refresh = next_refresh.saturating_duration_since(tokio::time::Instant::now());
        let until_event = next_announcement(&events_now, now, lead, &announced)
            .and_then(|t| Duration::try_from(now.duration_until(t)).ok())
            .unwrap_or(until_refresh);
        tokio::time::sleep(until_refresh.min(until_event).max(Duration::from_millis(10))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cn//test//EN\r\nBEGIN:VEVENT\r\nUID:standup-1@example.com\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260107T100000Z\r\nDTEND:20260107T101500Z\r\nSUMMARY:Standup\r\nLOCATION:Room 4\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:review-2@example.com\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260107T150000\r\nSUMMARY:Design review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn floating_times_and_all_day_dates_follow_the_local_clock_to_the_second() {
        let event = |start: &str| {
            format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cn//test//EN\r\nBEGIN:VEVENT\r\nUID:u\r\nDTSTAMP:20260101T000000Z\r\n{start}\r\nSUMMARY:s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        };
        let local = |dt: jiff::civil::DateTime| dt.to_zoned(TimeZone::system()).unwrap().timestamp();
        let start = |line: &str| events(&event(line)).unwrap().first().map(|e| e.start);
        assert_eq!(start("DTSTART:20260107T150405"), Some(local(jiff::civil::date(2026, 1, 7).at(15, 4, 5, 0))));
        assert_eq!(start("DTSTART;VALUE=DATE:20260107"), Some(local(jiff::civil::date(2026, 1, 7).at(0, 0, 0, 0))));
        assert_eq!(start("DTSTART:19691231T235959Z"), Some(ts("1969-12-31T23:59:59Z")));
        assert_eq!(
            start("DTSTART;TZID=America/New_York:20260308T023000"),
            Some(ts("2026-03-08T07:30:00Z")),
            "a wall time DST skips is taken as jiff's compatible reading"
        );
    }

    #[test]
    fn events_become_percepts_lead_time_before_start_once() {
        let evs = events(ICS).unwrap();
        assert_eq!(evs.len(), 2);
        assert_eq!(evs[1].start, ts("2026-01-07T14:00:00Z"), "TZID resolved");
        let lead = Duration::from_secs(15 * 60);
        let mut seen = HashSet::new();
        assert!(due(&evs, ts("2026-01-07T09:44:00Z"), lead, &mut seen).is_empty());
        assert_eq!(next_announcement(&evs, ts("2026-01-07T09:44:00Z"), lead, &seen), Some(ts("2026-01-07T09:45:00Z")));
        let got = due(&evs, ts("2026-01-07T09:45:00Z"), lead, &mut seen);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].summary, "Calendar: Standup starts in 15 min (2026-01-07T10:00:00Z)");
        assert_eq!(got[0].due, Some(ts("2026-01-07T10:00:00Z")));
        // The typed data is written as the `json!` map it was before: the same keys in the
        // same order, the start as it reads.
        let before = serde_json::json!({"uid": "standup-1@example.com", "summary": "Standup",
                                        "start": "2026-01-07T10:00:00Z", "location": "Room 4"});
        assert_eq!(serde_json::to_string(&got[0].data).unwrap(), before.to_string());
        assert_eq!(got[0].data_as::<Event>().as_ref(), Some(&evs[0]));
        let review = due(&evs, ts("2026-01-07T13:50:00Z"), lead, &mut seen);
        let before = serde_json::json!({"uid": "review-2@example.com", "summary": "Design review",
                                        "start": "2026-01-07T14:00:00Z", "location": null});
        assert_eq!(serde_json::to_string(&review[0].data).unwrap(), before.to_string());
        assert!(due(&evs, ts("2026-01-07T09:50:00Z"), lead, &mut seen).is_empty(), "announced once");
        // An event that already started is not announced.
        assert!(due(
            &evs,
            ts("2026-01-07T14:00:01Z"),
            lead,
            &mut HashSet::from([("standup-1@example.com".to_string(), ts("2026-01-07T10:00:00Z"))])
        )
        .is_empty());
    }
}
