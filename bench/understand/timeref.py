"""The judge's independent time reference: a `when` phrase -> the times it may mean.

`dateparser` (PyPI) reads the phrase, after a small normalisation written here (number words,
"half past six", "noon", a leading "by"/"on"/"at"). cn's own parser (`cn_reflex::when`) is not
used, so the reference is independent of what it judges. Where English (or dateparser) leaves
a phrase open, the reference says so instead of guessing:

  * granularity `minute`: the phrase names a clock time ("at 10:30", "3pm", "noon", "in 45
    minutes"): the due time must match one candidate to the minute;
  * `day`: a day without a clock time ("Friday", "tomorrow evening", "in 3 days", "Dec 4"):
    only the date is compared (which hour a bare day means is a convention, cn's 09:00 or
    dateparser's 00:00, not something the phrase says);
  * `unchecked`: a convention, not a date ("next week", "end of the month", "this weekend",
    "soon") or a phrase the reference cannot read: only that a due time was set is checked.

Candidates: a bare hour without am/pm ("at 3") is either half of the day; "next Friday" is the
coming Friday or the one after; a bare weekday that is today ("Thursday" on a Thursday) is
today or a week on. A time without a day is today if still ahead, else tomorrow.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50,
}
MINUTE_WORDS = {
    "oh five": 5, "o five": 5, "five": 5, "ten": 10, "fifteen": 15, "twenty": 20,
    "twenty five": 25, "twenty-five": 25, "thirty": 30, "forty": 40, "forty five": 45,
    "forty-five": 45, "fifty": 50, "fifty five": 55,
}
ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "twenty-first": 21, "twenty first": 21,
    "twenty-second": 22, "twenty second": 22, "twenty-third": 23, "twenty third": 23,
    "thirtieth": 30, "thirty-first": 31, "thirty first": 31,
}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
WEEKDAY_RE = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thur?s?|fri|sat|sun)"
HOUR_WORD_RE = "|".join(sorted((k for k, v in UNITS.items() if 1 <= v <= 12), key=len, reverse=True))
MIN_WORD_RE = "|".join(sorted(MINUTE_WORDS, key=len, reverse=True))

# A few common misspellings (cn reads them; dateparser does not).
TYPOS = {
    "wendesday": "wednesday", "wensday": "wednesday", "wednsday": "wednesday", "wedensday": "wednesday",
    "thursay": "thursday", "thrusday": "thursday", "tuseday": "tuesday", "teusday": "tuesday",
    "saturaday": "saturday", "satruday": "saturday", "firday": "friday", "fridya": "friday",
    "mondya": "monday", "sundya": "sunday", "febuary": "february", "feburary": "february",
    "decmber": "december", "novmber": "november", "janurary": "january", "tonite": "tonight",
    "nite": "night", "arvo": "afternoon", "tmrw": "tomorrow",
}

# Phrases whose time is a convention, not a date: only "a due time was set" is checked.
CONVENTIONS = re.compile(
    r"\b(next week|this week|end of (the )?(week|month|year|day)|eo[dwm]\b|next month|this month|"
    r"(this |the |next )?weekend|soon|later|sometime|some time|whenever|asap|"
    r"in a (bit|while|few)|a few (days|weeks|hours)|couple of|early next|later this|this year|next year)",
    re.I,
)
CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|\b(\d{1,2}):(\d{2})\b|\bnoon\b|\bmidnight\b|\bmidday\b", re.I)
BARE_AT = re.compile(r"\b(at|@|around|about|by)\s+(\d{1,2})\b(?!\s*(:|am|pm|st|nd|rd|th|\d|/|\.\d|(ish)?\s*(min|hour|day|week|month|year)))", re.I)
RELATIVE_CLOCK = re.compile(r"\bin\s+(an?|\d+|half an)\s*(hour|hr|minute|min|mins|hours|minutes|hrs|seconds?|secs?)\b", re.I)
ORDINAL_ONLY = re.compile(r"^(?:the\s+)?(\d{1,2})(st|nd|rd|th)$", re.I)
LEAD = re.compile(r"^(by|on|at|for|to|before|until|till|til|due|due on|due by|from|starting|no later than|sometime)\s+", re.I)


def number_words(text: str) -> str:
    """Spoken numbers to digits, for the clock: "ten am" -> "10 am", "two thirty pm" ->
    "2:30 pm", "half past six" -> "6:30", "quarter to nine" -> "8:45", "noon" -> "12:00"."""
    t = " " + text.lower() + " "
    t = re.sub(r"\ba\.m\.?", "am", t)
    t = re.sub(r"\bp\.m\.?", "pm", t)
    t = re.sub(r"\b([ap]) m\b", r"\1m", t)  # "five a m", said letter by letter
    t = re.sub(r"\b(12|twelve)\s+(noon|midday)\b", "noon", t)  # "12 noon", "twelve noon"
    t = re.sub(r"\blunch\s*time\b", "noon", t)  # cn reads lunchtime as noon
    t = re.sub(r"\b(noon|midday)\b", "12:00", t)
    t = re.sub(r"\bmidnight\b", "00:00", t)
    t = re.sub(r"\s*\bo'?\s?clock\b", ":00", t)  # "5 o clock" -> "5:00"
    # "1645h", "835h", "4h00": a clock of 24 hours with the hours' "h" ("4h00" is 4 am).
    t = re.sub(r"\b(\d{1,2})h(\d{2})\b|\b(\d{1,2})(\d{2})\s*h\b",
               lambda m: (lambda h, mi: f"{h}:{mi}am" if h < 12 else f"{h}:{mi}")(int(m.group(1) or m.group(3)), m.group(2) or m.group(4))
               if int(m.group(1) or m.group(3)) < 24 and int(m.group(2) or m.group(4)) < 60 else m.group(0), t)
    # "one and a half hours", "1 and a half minutes": in minutes, in seconds.
    every_unit = "|".join(sorted(UNITS, key=len, reverse=True))
    t = re.sub(rf"\b(\d{{1,2}}|{every_unit}) and a half (hours?|hrs?|minutes?|mins?)\b",
               lambda m: (lambda n, u: f"{n * 60 + 30} {'minutes' if u.startswith('h') else 'seconds'}")(
                   int(m.group(1)) if m.group(1).isdigit() else UNITS[m.group(1)], m.group(2)), t)

    def hour(w: str) -> int:
        return int(w) if w.isdigit() else UNITS[w]

    h = rf"(\d{{1,2}}|{HOUR_WORD_RE})"
    t = re.sub(rf"\bhalf (past|after) {h}\b", lambda m: f"{hour(m.group(2))}:30", t)
    t = re.sub(rf"\b(a )?quarter (past|after) {h}\b", lambda m: f"{hour(m.group(3))}:15", t)
    t = re.sub(rf"\b(a )?quarter (to|before|of) {h}\b", lambda m: f"{(hour(m.group(3)) - 2) % 12 + 1}:45", t)
    t = re.sub(rf"\b(\d{{1,2}}|{MIN_WORD_RE}) (minutes )?(past|after) {h}\b",
               lambda m: f"{hour(m.group(4))}:{int(m.group(1)) if m.group(1).isdigit() else MINUTE_WORDS[m.group(1)]:02d}", t)
    # "two thirty pm", "seven fifteen", "nine oh five", "sixteen forty five"
    h24 = "|".join(sorted((k for k, v in UNITS.items() if 1 <= v <= 23), key=len, reverse=True))
    t = re.sub(rf"\b({h24}) ({MIN_WORD_RE})\b(?!\s*(minutes|mins|hours|days|weeks))",
               lambda m: f"{UNITS[m.group(1)]}:{MINUTE_WORDS[m.group(2)]:02d}", t)
    t = re.sub(rf"\b({HOUR_WORD_RE})\s*(am|pm)\b", lambda m: f"{UNITS[m.group(1)]} {m.group(2)}", t)
    t = re.sub(rf"\b(at|around|by) ({HOUR_WORD_RE})\b(?!\s*(minutes|mins|hours|days|weeks|months))",
               lambda m: f"{m.group(1)} {UNITS[m.group(2)]}", t)
    tens = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
    ones = {k: v for k, v in UNITS.items() if 1 <= v <= 9}
    t = re.sub(rf"\b({'|'.join(tens)})[ -]({'|'.join(ones)})\b", lambda m: str(tens[m.group(1)] + ones[m.group(2)]), t)
    # counts for spans: "in two hours", "in ten minutes"
    words = "|".join(sorted(UNITS, key=len, reverse=True))
    t = re.sub(rf"\b({words})\s+(minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b",
               lambda m: f"{UNITS[m.group(1)]} {m.group(2)}", t)
    t = re.sub(r"\bhalf an hour\b", "30 minutes", t)
    # what is left of a spoken hour: "evening five", "five in the evening"
    t = re.sub(rf"\b({HOUR_WORD_RE})\b(?!\s*(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|seconds?|secs?|people|times))",
               lambda m: str(UNITS[m.group(1)]), t)
    t = re.sub(r"\ban hour and a half\b", "90 minutes", t)
    for w, n in sorted(ORDINAL_WORDS.items(), key=lambda kv: -len(kv[0])):
        suf = "st" if n % 10 == 1 and n != 11 else "nd" if n % 10 == 2 and n != 12 else "rd" if n % 10 == 3 and n != 13 else "th"
        # ("a 40 second timer": a unit after a number, no ordinal.)
        t = re.sub(rf"(?<!\d )(?<!\d-)\b(the )?{w}\b(?! (time|thing|one))", f"\\g<1>{n}{suf}", t)
    return re.sub(r"\s+", " ", t).strip()


def before_clock(t: str) -> str:
    """ "one hour before 3pm" -> "2pm": a span before a clock time is the earlier time."""
    def back(m):
        n, unit, h, mi, ap = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4) or 0), m.group(5)
        h24 = (h % 12) + (12 if ap == "pm" else 0)
        total = h24 * 60 + mi - (n * 60 if unit.startswith("h") else n)
        total %= 24 * 60
        return f"{total // 60}:{total % 60:02d}"
    return re.sub(r"\b(\d{1,3}) (hours?|minutes?|mins?) before (\d{1,2})(?::(\d{2}))?\s*(am|pm)\b", back, t)


def normalise(text: str) -> str:
    t = before_clock(number_words(text))
    t = re.sub(r"\b(\d{1,2})\.(\d{2})\s*(am|pm)\b", r"\1:\2\3", t)  # "2.30pm"
    t = re.sub(r"\b(at|@|around|by) (\d{1,2}) ([0-5]\d)\b(?!\s*(minutes?|mins?|hours?|seconds?))", r"\1 \2:\3", t)  # "at 3 30"
    t = re.sub(r"\b(?:a|one|1) week from (today|now)\b", "in 7 days", t)
    t = re.sub(r"\b(?:a|one|1) week from tomorrow\b", "in 8 days", t)
    t = re.sub(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday) of next week\b", r"next \1", t)
    t = re.sub(r"[!?,;]+", " ", t)
    t = re.sub(r"\s+", " ", t).strip().rstrip(".")
    while True:
        s = LEAD.sub("", t)
        if s == t:
            break
        t = s
    t = re.sub(r"\b(tmrw|tmr|tomoz|tom|tomorow|tommorow|tommorrow|tomorrrow|2morrow|tmw)\b", "tomorrow", t)
    for wrong, right in TYPOS.items():
        t = re.sub(rf"\b{wrong}\b", right, t)
    t = re.sub(r"\b([1-9]|1[0-2])([0-5]\d)\s*(am|pm)\b", r"\1:\2\3", t)  # "615am"
    t = re.sub(r"^(\d{1,2})([0-5]\d)$", lambda m: f"{m.group(1)}:{m.group(2)}" if int(m.group(1)) < 24 else m.group(0), t)  # "830"
    t = re.sub(r"\b(\d{1,2})\s*(am|pm)\b", r"\1\2", t)
    t = re.sub(r"\b(\d{1,2}):(\d{2})\s*(am|pm)\b", r"\1:\2\3", t)
    t = re.sub(r"\bthis (morning|afternoon|evening)\b", r"today \1", t)
    t = re.sub(r"\b(an|a) (hour|minute|day|week|month)\b", r"1 \2", t)
    return t


@dataclass
class Reference:
    """What a `when` phrase may mean: candidate times (naive, in the hub's zone) and how
    finely they are compared."""

    phrase: str
    normalised: str
    granularity: str  # minute | day | unchecked
    candidates: list = field(default_factory=list)
    why: str = ""

    def matches(self, due: dt.datetime | None) -> bool | None:
        """True/False when checkable, None when only the presence of a due is checked."""
        if self.granularity == "unchecked":
            return None
        if due is None:
            return False
        for c in self.candidates:
            if self.granularity == "minute" and (c.date(), c.hour, c.minute) == (due.date(), due.hour, due.minute):
                return True
            if self.granularity == "day" and c.date() == due.date():
                return True
        return False

    def describe(self) -> str:
        if self.granularity == "unchecked":
            return f"unchecked ({self.why})"
        fmt = "%Y-%m-%d %H:%M" if self.granularity == "minute" else "%Y-%m-%d"
        return " | ".join(sorted({c.strftime(fmt) for c in self.candidates}))


def _dp(text: str, now: dt.datetime):
    import dateparser  # the venv's; imported late so the normalisation tests need none

    return dateparser.parse(
        text,
        languages=["en"],
        settings={"PREFER_DATES_FROM": "future", "RELATIVE_BASE": now, "RETURN_AS_TIMEZONE_AWARE": False},
    )


def _clock(t: str):
    """(hour, minute, ambiguous) of the clock time in normalised text t, or None."""
    m = re.search(r"\b(\d{1,2})(?::(\d{2}))?(am|pm)\b", t)
    if m:
        h, mi = int(m.group(1)) % 12, int(m.group(2) or 0)
        if m.group(3) == "pm":
            h += 12
        return h, mi, False, m.span()
    m = re.search(r"\b(\d{1,2}):(\d{2})\b", t)
    if m and int(m.group(1)) < 24 and int(m.group(2)) < 60:
        h, mi = int(m.group(1)), int(m.group(2))
        return h, mi, 1 <= h <= 11 and not re.search(r"\b(morning|am)\b", t), m.span()
    m = BARE_AT.search(t) or re.search(rf"(?:^|\b(?:today|tomorrow|tonight|{WEEKDAY_RE})\s+)(\d{{1,2}})$", t)
    if m and 0 <= int(m.group(m.lastindex)) <= 23:
        h = int(m.group(m.lastindex))
        return h, 0, 1 <= h <= 11 and not re.search(r"\bmorning\b", t), m.span(m.lastindex)
    months = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
    m = re.search(rf"(?<![\d/.-])\b(\d{{1,2}})\b(?![\d/.:-])(?!\s*(st|nd|rd|th|min|hour|hr|day|week|month|year|sec|{months}))", t)
    if m and not re.search(rf"{months}\s+{m.group(1)}\b", t) and 0 < int(m.group(1)) <= 23:
        h = int(m.group(1))
        return h, 0, 1 <= h <= 11, m.span(1)
    if False:
        h = int(m.group(2))
        return h, 0, 1 <= h <= 11 and not re.search(r"\bmorning\b", t), m.span()
    return None


def _day_part(text: str, now: dt.datetime, tomorrow_if_past_time=None):
    """Candidate dates for the day part of normalised text (no clock time in it)."""
    t = text.strip()
    # "in the morning" said after the morning: the next one.
    if re.fullmatch(r"(in the )?morning", t) and now.hour >= 12:
        return [now.date() + dt.timedelta(days=1)], "the next morning"
    t = re.sub(r"\b(morning|afternoon|evening|night|tonight)\b", lambda m: "today" if m.group(1) == "tonight" else "", t).strip()
    t = re.sub(r"\b(in the|at)\s*$", "", t).strip()
    if not t or t in ("today", "later today"):
        return [now.date()], "today"
    m = ORDINAL_ONLY.match(t)
    if m:
        d = int(m.group(1))
        y, mo = now.year, now.month
        for _ in range(14):
            try:
                cand = dt.date(y, mo, d)
                if cand >= now.date():
                    return [cand], "ordinal"
            except ValueError:
                pass
            mo += 1
            if mo == 13:
                y, mo = y + 1, 1
        return [], "ordinal out of range"
    wd = re.fullmatch(rf"(this |next |coming |this coming )?{WEEKDAY_RE}", t)
    if wd:
        name = next(w for w in WEEKDAYS if w.startswith(wd.group(2)[:3]))
        target = WEEKDAYS.index(name)
        ahead = (target - now.weekday()) % 7
        first = now.date() + dt.timedelta(days=ahead)
        cands = [first]
        if ahead == 0:
            cands.append(first + dt.timedelta(days=7))
        if (wd.group(1) or "").strip() == "next":
            cands = sorted({c if c > now.date() else c + dt.timedelta(days=7) for c in cands})
            cands.append(cands[0] + dt.timedelta(days=7))
        return cands, "weekday"
    got = _dp(t, now)
    if got is None:
        # "tomorrow morning" etc. read, but something else left in: try without "in the"
        return [], "dateparser cannot read the day"
    return [got.date()], "dateparser"


def _reference(phrase: str, now: dt.datetime) -> Reference:
    t = normalise(phrase)
    ref = Reference(phrase=phrase, normalised=t, granularity="unchecked")
    if not t:
        ref.why = "empty"
        return ref
    if CONVENTIONS.search(t):
        ref.why = "a convention, not a date"
        return ref
    # A span said alone is from now: "5 minute", "a 10-minute timer", "40 second".
    rel = RELATIVE_CLOCK.search(t) or re.search(r"\b(\d+)(?:\s*|-)(hour|hr|minute|min|second|sec)s?\b", t)
    if rel and not CLOCK.search(t):
        span = t[rel.start():].strip().replace("-", " ")
        if not span.startswith("in "):
            span = "in " + span
        got = _dp(span, now)
        if got is None:
            ref.why = "dateparser cannot read the span"
            return ref
        ref.granularity, ref.candidates = "minute", [got]
        return ref
    clock = _clock(t)
    if clock:
        h, mi, ambiguous, (a, b) = clock
        rest = (t[:a] + " " + t[b:]).strip()
        rest = re.sub(r"\b(at|@|around|about|by)\s*$", "", rest).strip()
        rest = re.sub(r"\s+", " ", re.sub(r"\b(at|@|around|about)\b(?=\s|$)", " ", rest)).strip()
        while LEAD.sub("", rest) != rest:
            rest = LEAD.sub("", rest)
        hours = [h] + ([h + 12] if ambiguous else [])
        if re.search(r"\b(afternoon|evening|night|tonight)\b", rest):
            hours = [x for x in hours if x >= 12] or hours
        elif re.search(r"\bmorning\b", rest):
            hours = [x for x in hours if x < 12] or hours
        if not rest or re.fullmatch(r"(today|in the (morning|afternoon|evening)|tonight)", rest):
            cands = []
            for x in hours:
                c = now.replace(hour=x, minute=mi, second=0, microsecond=0)
                if c <= now and not rest.startswith("today"):
                    c += dt.timedelta(days=1)
                cands.append(c)
            ref.granularity, ref.candidates = "minute", cands
            return ref
        days, how = _day_part(rest, now)
        if not days:
            ref.why = how
            return ref
        ref.granularity = "minute"
        ref.candidates = [dt.datetime.combine(d, dt.time(x, mi)) for d in days for x in hours]
        return ref
    days, how = _day_part(t, now)
    if not days:
        ref.why = how
        return ref
    ref.granularity, ref.candidates = "day", [dt.datetime.combine(d, dt.time(0, 0)) for d in days]
    return ref


def reference(phrase: str, now: dt.datetime) -> Reference:
    """The reference for a `when` phrase at `now` (naive, the hub's zone): candidates already
    past are dropped while a later one remains ("4:00 today" at 14:30 is 16:00)."""
    ref = _reference(phrase, now)
    if ref.granularity == "minute":
        ahead = [c for c in ref.candidates if c >= now]
        if ahead:
            ref.candidates = ahead
    elif ref.granularity == "day":
        ahead = [c for c in ref.candidates if c.date() >= now.date()]
        if ahead:
            ref.candidates = ahead
    return ref
