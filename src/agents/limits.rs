//! Usage limits in an agent's own words: whether a text says the plan is out of quota,
//! and when it resets.
//!
//! This is the second source. The classifier ([`super::result`]) decides from structure
//! first (`api_error_status`, a `rate_limit_event`, a `turn.failed` event); these texts
//! are read only where a run already failed, and a reset time is given only when the text
//! says it in one of the forms below. Anything else is `None`: an unknown reset closes a
//! plan until a person reopens it, it is never guessed.
//!
//! The forms, each pinned by a fixture in `tests/data/agent-output/`:
//!
//! | text | read as |
//! |---|---|
//! | `Claude AI usage limit reached\|1767312000` | that epoch (seconds) |
//! | `resets 10:40pm (America/Sao_Paulo)` | the next 10:40 pm after now, in that zone |
//! | `resets Sep 24 at 3pm (Australia/Brisbane)` | the next Sep 24, 3 pm, in that zone |
//! | `resets Mon 12:00am` | the next Monday midnight |
//! | `5-hour limit reached ∙ resets 12pm` | the next noon in the local zone (no zone named) |
//! | `resets in 1d 5h` | now + that duration |
//! | codex `try again at 3:28 PM.` | the next 3:28 pm, local (codex prints local time) |
//! | codex `try again at Jul 9th, 2026 1:47 AM.` | that date and time, local |
//! | gemini `Your quota will reset after 1h49m8s.` | now + that duration |
//! | gemini `Please retry in 34.9s` / `997.96ms`, `Suggested retry after 60s.` | now + that, rounded up to a second |
//!
//! "Local" is the zone the caller passes, which `classify` takes from the system
//! (`TZ`, else `/etc/localtime`): the agent ran on this machine, in fleet's environment.
//! A zone named in the text is looked up in the system's tz database
//! (`/usr/share/zoneinfo`); a name it does not know gives no reset time.

use jiff::Timestamp;
use jiff::civil::{Date, Time, Weekday};
use jiff::tz::TimeZone;

/// What a text says about a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Said {
    /// An overload or a short rate limit: back off and retry, the plan stays open.
    pub overload: bool,
    /// The HTTP status the text names, when it names one.
    pub status: Option<u16>,
}

/// The phrases that mean "out of quota" (or "overloaded"), lower-cased, with what each
/// says. Matched anywhere in the text, ASCII case ignored.
const PHRASES: &[(&str, Said)] = &[
    // Claude Code: the session/weekly banner and its older forms.
    ("hit your session limit", LIMIT),
    ("hit your weekly limit", LIMIT),
    ("hit your opus limit", LIMIT),
    ("usage limit reached", LIMIT),
    ("-hour limit reached", LIMIT),
    ("request rejected (429)", STATUS_429),
    ("rate_limit_error", STATUS_429),
    ("overloaded_error", OVERLOADED_529),
    // Codex (core/src/error.rs): the apostrophe is sometimes U+2019, so it is left out.
    ("hit your usage limit", LIMIT),
    ("quota exceeded. check your plan", LIMIT),
    ("last status: 429", STATUS_429),
    ("currently experiencing high demand", OVERLOADED),
    // Gemini CLI (core/src/utils/googleQuotaErrors.ts).
    ("terminalquotaerror", LIMIT),
    ("retryablequotaerror", OVERLOADED),
    ("exhausted your capacity on this model", LIMIT),
    ("exhausted your daily quota", LIMIT),
    ("resource_exhausted", STATUS_429),
];

const LIMIT: Said = Said {
    overload: false,
    status: None,
};
const STATUS_429: Said = Said {
    overload: false,
    status: Some(429),
};
const OVERLOADED: Said = Said {
    overload: true,
    status: None,
};
const OVERLOADED_529: Said = Said {
    overload: true,
    status: Some(529),
};

/// Whether `text` says a usage limit (or an overload) was hit. A quota phrase wins over
/// an overload phrase when both appear.
pub fn limit_said(text: &str) -> Option<Said> {
    let lower = text.to_ascii_lowercase();
    let mut found: Option<Said> = None;
    for (phrase, said) in PHRASES {
        if !lower.contains(phrase) {
            continue;
        }
        found = Some(match found {
            None => *said,
            Some(before) => Said {
                overload: before.overload && said.overload,
                status: before.status.or(said.status),
            },
        });
    }
    found
}

/// When the limit `text` speaks of resets (seconds since the epoch), or `None` when it
/// says so in no form this module reads. `local` is the zone for times that name none.
pub fn reset_in_text(text: &str, now: i64, local: &TimeZone) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    // Byte offsets in `lower` are offsets in `text`: ASCII lower-casing keeps lengths.
    if let Some(at) = after(&lower, "limit reached|") {
        return epoch(&text[at..]);
    }
    if let Some(at) = after(&lower, "resets in ") {
        return now.checked_add(duration(&lower[at..])?);
    }
    if let Some(at) = after(&lower, "resets ") {
        return moment(&text[at..], now, local);
    }
    if let Some(at) = after(&lower, "try again at ") {
        return moment(&text[at..], now, local);
    }
    for marker in ["reset after ", "retry in ", "retry after "] {
        if let Some(at) = after(&lower, marker) {
            return now.checked_add(duration(&lower[at..])?);
        }
    }
    None
}

/// The offset just past the first `marker` in `lower`.
fn after(lower: &str, marker: &str) -> Option<usize> {
    lower.find(marker).map(|i| i + marker.len())
}

/// `1767312000` at the start of `s`: epoch seconds (10 digits, so milliseconds are not
/// mistaken for seconds far in the future).
fn epoch(s: &str) -> Option<i64> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() != 10 {
        return None;
    }
    digits.parse().ok()
}

/// `1d 5h`, `1h49m8s`, `34.9s`, `997.965142ms` at the start of `s`, in whole seconds
/// rounded up. A unit followed by a letter (`5 minutes`, `2 months`) is not read.
fn duration(s: &str) -> Option<i64> {
    let mut cur = Cursor::new(s);
    let mut total = 0.0f64;
    let mut parts = 0;
    loop {
        cur.spaces();
        let Some(n) = cur.decimal() else {
            break;
        };
        cur.spaces();
        let unit = ["ms", "d", "h", "m", "s"]
            .into_iter()
            .find(|u| cur.rest().starts_with(u))?;
        cur.pos += unit.len();
        if cur.rest().starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        total += n * match unit {
            "ms" => 0.001,
            "d" => 86_400.0,
            "h" => 3_600.0,
            "m" => 60.0,
            _ => 1.0,
        };
        parts += 1;
    }
    if parts == 0 || !total.is_finite() || total > 1e9 {
        return None;
    }
    Some(total.ceil() as i64)
}

/// A point in time at the start of `s`: `10:40pm (America/Sao_Paulo)`, `12pm`,
/// `Sep 24 at 3pm (Zone)`, `Mon 12:00am`, `Jul 9th, 2026 1:47 AM`. The next such time
/// after `now` when the year (or the day) is not given.
fn moment(s: &str, now: i64, local: &TimeZone) -> Option<i64> {
    let mut cur = Cursor::new(s);
    let mut day = Day::Next;
    if let Some(month) = cur.month() {
        cur.spaces();
        let d = cur.int(2)?;
        for suffix in ["st", "nd", "rd", "th"] {
            if cur.eat(suffix) {
                break;
            }
        }
        cur.eat(",");
        cur.spaces();
        let save = cur.pos;
        let year = match cur.int(4) {
            Some(y) if y >= 1970 => Some(y),
            _ => {
                cur.pos = save;
                None
            }
        };
        cur.eat(",");
        cur.spaces();
        if cur.eat_word("at") {
            cur.spaces();
        }
        day = Day::Date {
            year,
            month,
            day: d,
        };
    } else if let Some(weekday) = cur.weekday() {
        cur.spaces();
        day = Day::Weekday(weekday);
    }
    let time = cur.clock()?;
    cur.spaces();
    let tz = match cur.zone_name() {
        Some(name) => jiff::tz::db().get(name).ok()?,
        None => local.clone(),
    };
    next_after(day, time, now, &tz)
}

/// Which day a clock time falls on.
#[derive(Clone, Copy)]
enum Day {
    /// Today if still ahead, else tomorrow.
    Next,
    /// The next such weekday (today if the time is still ahead).
    Weekday(Weekday),
    /// That date; without a year, the next one ahead.
    Date {
        year: Option<i64>,
        month: i64,
        day: i64,
    },
}

/// The first moment after `now` that is `time` on `day` in `tz`.
fn next_after(day: Day, time: Time, now: i64, tz: &TimeZone) -> Option<i64> {
    let today = Timestamp::from_second(now)
        .ok()?
        .to_zoned(tz.clone())
        .date();
    let at = |date: Date| -> Option<i64> {
        let zoned = date.to_datetime(time).to_zoned(tz.clone()).ok()?;
        Some(zoned.timestamp().as_second())
    };
    match day {
        Day::Next | Day::Weekday(_) => {
            let mut date = today;
            for _ in 0..8 {
                let fits = match day {
                    Day::Weekday(w) => date.weekday() == w,
                    _ => true,
                };
                if fits && let Some(t) = at(date).filter(|&t| t > now) {
                    return Some(t);
                }
                date = date.tomorrow().ok()?;
            }
            None
        }
        Day::Date { year, month, day } => {
            let (month, day) = (i8::try_from(month).ok()?, i8::try_from(day).ok()?);
            match year {
                Some(y) => at(Date::new(i16::try_from(y).ok()?, month, day).ok()?),
                None => (0..2).find_map(|k| {
                    let date = Date::new(today.year() + k, month, day).ok()?;
                    at(date).filter(|&t| t > now)
                }),
            }
        }
    }
}

/// A plain left-to-right reader over a text.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn spaces(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t']).len();
    }

    /// `word`, ASCII case ignored.
    fn eat(&mut self, word: &str) -> bool {
        let rest = self.rest();
        let fits = rest
            .get(..word.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(word));
        if fits {
            self.pos += word.len();
        }
        fits
    }

    /// `word` as a whole word.
    fn eat_word(&mut self, word: &str) -> bool {
        let save = self.pos;
        if self.eat(word) && !self.rest().starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return true;
        }
        self.pos = save;
        false
    }

    /// An unsigned integer of 1 to `max` digits, not followed by another digit.
    fn int(&mut self, max: usize) -> Option<i64> {
        let rest = self.rest();
        let n = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if n == 0 || n > max {
            return None;
        }
        self.pos += n;
        rest[..n].parse().ok()
    }

    /// `34`, `34.9`.
    fn decimal(&mut self) -> Option<f64> {
        let rest = self.rest();
        let int = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if int == 0 {
            return None;
        }
        let mut end = int;
        if let Some(frac) = rest[int..].strip_prefix('.') {
            let n = frac.len() - frac.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if n > 0 {
                end += 1 + n;
            }
        }
        self.pos += end;
        rest[..end].parse().ok()
    }

    /// `Sep`, `September` (1..=12).
    fn month(&mut self) -> Option<i64> {
        const MONTHS: [&str; 12] = [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ];
        for (i, name) in MONTHS.iter().enumerate() {
            if self.eat_word(name) || self.eat_word(&name[..3]) || (i == 8 && self.eat_word("sept"))
            {
                self.eat(".");
                return Some(i as i64 + 1);
            }
        }
        None
    }

    /// `Mon`, `Monday`.
    fn weekday(&mut self) -> Option<Weekday> {
        const DAYS: [(&str, Weekday); 7] = [
            ("monday", Weekday::Monday),
            ("tuesday", Weekday::Tuesday),
            ("wednesday", Weekday::Wednesday),
            ("thursday", Weekday::Thursday),
            ("friday", Weekday::Friday),
            ("saturday", Weekday::Saturday),
            ("sunday", Weekday::Sunday),
        ];
        DAYS.into_iter()
            .find(|(name, _)| self.eat_word(name) || self.eat_word(&name[..3]))
            .map(|(_, day)| day)
    }

    /// `10:40pm`, `12pm`, `3:28 PM`, `1:47 a.m.`, `22:40` (a 24-hour time needs its
    /// minutes; a bare `10` is not a time).
    fn clock(&mut self) -> Option<Time> {
        let hour = self.int(2)?;
        let minute = if self.eat(":") {
            Some(self.int(2)?)
        } else {
            None
        };
        let save = self.pos;
        self.spaces();
        let meridiem = if self.eat_word("am") || self.eat_word("a.m.") {
            Some(0)
        } else if self.eat_word("pm") || self.eat_word("p.m.") {
            Some(12)
        } else {
            self.pos = save;
            None
        };
        let hour = match meridiem {
            Some(half) if (1..=12).contains(&hour) => hour % 12 + half,
            Some(_) => return None,
            None if minute.is_some() && hour < 24 => hour,
            None => return None,
        };
        if self.rest().starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return None;
        }
        Time::new(hour as i8, minute.unwrap_or(0) as i8, 0, 0).ok()
    }

    /// `(America/Sao_Paulo)`: an IANA name in parentheses.
    fn zone_name(&mut self) -> Option<&'a str> {
        let rest = self.rest().strip_prefix('(')?;
        let end = rest.find(')')?;
        let name = &rest[..end];
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c));
        if !ok {
            return None;
        }
        self.pos += end + 2;
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-03-14 12:00:00 UTC, a Saturday.
    const NOW: i64 = 1_773_489_600;

    fn utc() -> TimeZone {
        TimeZone::UTC
    }

    /// The zone from the system's tz database, or `None` with a loud line when the
    /// machine has none.
    #[allow(
        clippy::print_stderr,
        reason = "a test's SKIPPED line, not the library printing"
    )]
    fn zone(name: &str) -> Option<TimeZone> {
        match jiff::tz::db().get(name) {
            Ok(tz) => Some(tz),
            Err(e) => {
                eprintln!("SKIPPED: no tz database entry for {name} on this machine ({e})");
                None
            }
        }
    }

    fn at(tz: &TimeZone, y: i16, mo: i8, d: i8, h: i8, mi: i8) -> i64 {
        Date::new(y, mo, d)
            .unwrap()
            .at(h, mi, 0, 0)
            .to_zoned(tz.clone())
            .unwrap()
            .timestamp()
            .as_second()
    }

    #[test]
    fn a_named_zone_is_read_in_that_zone_as_the_next_such_time() {
        let Some(sp) = zone("America/Sao_Paulo") else {
            return;
        };
        // 12:00 UTC is 09:00 in São Paulo (UTC-3): 10:40pm is later the same day.
        let text = "You've hit your session limit · resets 10:40pm (America/Sao_Paulo)";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&sp, 2026, 3, 14, 22, 40))
        );
        // 8am São Paulo has passed: tomorrow's.
        let text = "You've hit your session limit · resets 8am (America/Sao_Paulo)";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&sp, 2026, 3, 15, 8, 0))
        );
    }

    #[test]
    fn a_zone_the_database_does_not_know_gives_no_time() {
        let text = "resets 10:40pm (Mars/Olympus_Mons)";
        assert_eq!(reset_in_text(text, NOW, &utc()), None);
    }

    #[test]
    fn no_zone_means_the_local_zone() {
        let Some(tokyo) = zone("Asia/Tokyo") else {
            return;
        };
        // 12:00 UTC is 21:00 in Tokyo: the next noon there is tomorrow's.
        let text = "5-hour limit reached ∙ resets 12pm";
        assert_eq!(
            reset_in_text(text, NOW, &tokyo),
            Some(at(&tokyo, 2026, 3, 15, 12, 0))
        );
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&utc(), 2026, 3, 15, 12, 0))
        );
    }

    #[test]
    fn the_epoch_form_is_that_epoch() {
        let text = "Claude AI usage limit reached|1773518400";
        assert_eq!(reset_in_text(text, NOW, &utc()), Some(1_773_518_400));
        // Not ten digits: not read as seconds.
        let text = "Claude AI usage limit reached|1773518400000";
        assert_eq!(reset_in_text(text, NOW, &utc()), None);
    }

    #[test]
    fn codex_clock_and_dated_forms() {
        let text = "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing), visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&utc(), 2026, 3, 14, 15, 28))
        );
        let text = "You've hit your usage limit. Try again at Jul 9th, 2026 1:47 AM.";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&utc(), 2026, 7, 9, 1, 47))
        );
        let text = "You've hit your usage limit. Try again later.";
        assert_eq!(reset_in_text(text, NOW, &utc()), None);
    }

    #[test]
    fn claude_weekly_and_relative_forms() {
        let Some(bne) = zone("Australia/Brisbane") else {
            return;
        };
        let text = "You've hit your weekly limit · resets Sep 24 at 3pm (Australia/Brisbane)";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&bne, 2026, 9, 24, 15, 0))
        );
        // NOW is a Saturday: the next Monday is the 16th.
        let text = "You've hit your weekly limit · resets Mon 12:00am";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(at(&utc(), 2026, 3, 16, 0, 0))
        );
        let text = "You've hit your session limit · resets in 1d 5h";
        assert_eq!(
            reset_in_text(text, NOW, &utc()),
            Some(NOW + 86_400 + 5 * 3_600)
        );
    }

    #[test]
    fn gemini_durations_round_up() {
        let text = "TerminalQuotaError: ... Please retry in 34.9s";
        assert_eq!(reset_in_text(text, NOW, &utc()), Some(NOW + 35));
        let text = "Your quota will reset after 1h49m8s.";
        assert_eq!(reset_in_text(text, NOW, &utc()), Some(NOW + 6_548));
        let text = "Please retry in 997.965142ms.";
        assert_eq!(reset_in_text(text, NOW, &utc()), Some(NOW + 1));
    }

    #[test]
    fn unknown_forms_give_no_time() {
        for text in [
            "API Error: Request rejected (429) · rate limited",
            "resets soon",
            "resets 10",
            "resets 13pm (UTC)",
            "retry in 5 minutes",
            "resets in 2 months",
            "try again at noon",
        ] {
            assert_eq!(reset_in_text(text, NOW, &utc()), None, "{text}");
        }
    }

    #[test]
    fn limit_phrases() {
        assert_eq!(
            limit_said("You\u{2019}ve hit your usage limit. Try again later."),
            Some(LIMIT)
        );
        assert_eq!(
            limit_said("■ exceeded retry limit, last status: 429 Too Many Requests"),
            Some(STATUS_429)
        );
        assert_eq!(
            limit_said("RetryableQuotaError: Resource has been exhausted"),
            Some(OVERLOADED)
        );
        assert_eq!(limit_said("tests failed: 3 of 40"), None);
    }
}
