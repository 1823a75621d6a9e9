use super::*;
use proptest::prelude::*;

/// Monday 23 November 2026, 14:30 in Paris.
fn monday() -> Zoned {
    "2026-11-23T14:30:00[Europe/Paris]".parse().unwrap()
}

/// Thursday 26 November 2026, 14:30 in Paris: the routine corpus's now.
fn thursday() -> Zoned {
    "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap()
}

fn at(text: &str, now: &Zoned) -> String {
    match parse(text, now) {
        Ok(Some(d)) => format!("{} | {} | {}", d.at.strftime("%Y-%m-%d %H:%M"), d.phrase, d.rest),
        Ok(None) => "none".into(),
        Err(e) => format!("error: {e}"),
    }
}

fn due(text: &str) -> String {
    at(text, &monday())
}

/// Just the time, on Thursday.
fn on_thursday(text: &str) -> String {
    match parse(text, &thursday()) {
        Ok(Some(d)) => d.at.strftime("%Y-%m-%d %H:%M").to_string(),
        Ok(None) => "none".into(),
        Err(WhenError::Unreadable { phrase, .. }) => format!("unreadable: {phrase}"),
        Err(WhenError::Past { phrase, .. }) => format!("past: {phrase}"),
    }
}

#[test]
fn reads_the_common_phrasings_in_the_hubs_zone() {
    assert_eq!(due("call mom tomorrow"), "2026-11-24 09:00 | tomorrow | call mom");
    assert_eq!(due("call mom tomorrow at 6pm"), "2026-11-24 18:00 | tomorrow at 6pm | call mom");
    assert_eq!(due("at 9am buy bread"), "2026-11-24 09:00 | at 9am | buy bread", "9am has passed today");
    assert_eq!(due("submit the report at 16:00"), "2026-11-23 16:00 | at 16:00 | submit the report");
    assert_eq!(due("renew the passport next week"), "2026-11-30 09:00 | next week | renew the passport");
    assert_eq!(due("pay rent on the 1st"), "2026-12-01 09:00 | on the 1st | pay rent");
    assert_eq!(due("water plants in 3 days"), "2026-11-26 14:30 | in 3 days | water plants");
    assert_eq!(due("stretch in 20 minutes"), "2026-11-23 14:50 | in 20 minutes | stretch");
    assert_eq!(due("dentist on friday at 10"), "2026-11-27 10:00 | on friday at 10 | dentist");
    assert_eq!(due("gym next friday evening"), "2026-12-04 18:00 | next friday evening | gym");
    assert_eq!(due("send invoices by end of the month"), "2026-11-30 17:00 | by end of the month | send invoices");
    assert_eq!(due("buy milk"), "none");
    let utc = find("call at 9am tomorrow", &monday()).unwrap();
    assert_eq!(utc.rfc3339(), "2026-11-24T08:00:00Z", "stored in UTC");
    assert_eq!(utc.human(), "Tue 24 Nov, 09:00");
}

#[test]
fn dates_with_and_without_a_year() {
    for (text, want) in [
        ("on March 3", "2027-03-03 09:00"),
        ("March 3rd", "2027-03-03 09:00"),
        ("on March 3rd", "2027-03-03 09:00"),
        ("on December 3rd", "2026-12-03 09:00"),
        ("by April 15th", "2027-04-15 09:00"),
        ("on January 5th 2027", "2027-01-05 09:00"),
        ("3 March 2027", "2027-03-03 09:00"),
        ("the 3rd of March", "2027-03-03 09:00"),
        ("March 3, 2027 at 5pm", "2027-03-03 17:00"),
        ("on Dec 4 at 3pm", "2026-12-04 15:00"),
        ("on 20 December 2026", "2026-12-20 09:00"),
        ("on 15 January", "2027-01-15 09:00"),
        ("on 2027-03-03", "2027-03-03 09:00"),
        ("on 25/12", "2026-12-25 09:00"),
        ("the 3rd", "2026-12-03 09:00"),
        ("by the 28th", "2026-11-28 09:00"),
        ("the 31st", "2026-12-31 09:00"),
        ("the 3rd of next month", "2026-12-03 09:00"),
    ] {
        assert_eq!(on_thursday(text), want, "{text}");
    }
}

#[test]
fn weekdays_weeks_and_parts_of_the_day() {
    for (text, want) in [
        ("Friday", "2026-11-27 09:00"),
        ("this Friday", "2026-11-27 09:00"),
        ("next Friday", "2026-12-04 09:00"),
        ("Thursday", "2026-12-03 09:00"),
        ("on Monday", "2026-11-30 09:00"),
        ("next Monday", "2026-11-30 09:00"),
        ("next Tuesday", "2026-12-01 09:00"),
        ("on wed", "2026-12-02 09:00"),
        ("Sunday evening", "2026-11-29 18:00"),
        ("Tuesday night", "2026-12-01 20:00"),
        ("tomorrow afternoon", "2026-11-27 14:00"),
        ("tonight", "2026-11-26 20:00"),
        ("this evening", "2026-11-26 18:00"),
        ("this week", "2026-11-27 17:00"),
        ("by the end of the week", "2026-11-27 17:00"),
        ("this weekend", "2026-11-28 09:00"),
        ("next month", "2026-12-01 09:00"),
        ("end of the month", "2026-11-30 17:00"),
        ("in 2 hours", "2026-11-26 16:30"),
        ("in half an hour", "2026-11-26 15:00"),
        ("in a week", "2026-12-03 14:30"),
        ("at 5pm", "2026-11-26 17:00"),
        ("at 4", "2026-11-26 16:00"),
        ("at noon", "2026-11-27 12:00"),
        ("tomorrow evening at 8", "2026-11-27 20:00"),
        ("put on sun cream", "none"),
        ("24/7 support", "none"),
        // TOPv2's: "this upcoming", "this coming", "the upcoming" are the next such day.
        ("this upcoming Monday", "2026-11-30 09:00"),
        ("this coming monday", "2026-11-30 09:00"),
        ("the upcoming sunday", "2026-11-29 09:00"),
        // A weekday and its ordinal, whatever follows; checked against each other.
        ("on sunday the sixth pick up a present", "2026-12-06 09:00"),
        ("on monday the sixth pick up a present", "unreadable: on monday the 6th"),
        // A month, "the", and its day.
        ("for July the 1st", "2027-07-01 09:00"),
        ("tommorw at 4pm", "2026-11-27 16:00"),
        ("on july the 4th at 8pm", "2027-07-04 20:00"),
    ] {
        assert_eq!(on_thursday(text), want, "{text}");
    }
}

#[test]
fn misspelt_date_words_are_read() {
    assert_eq!(on_thursday("call the dentist tomorow"), "2026-11-27 09:00");
    assert_eq!(on_thursday("pay the gas bill on wendesday"), "2026-12-02 09:00");
    assert_eq!(on_thursday("renew the permit on thrusday"), "2026-12-03 09:00");
    assert_eq!(on_thursday("send the form on Febuary 2"), "2027-02-02 09:00");
    assert_eq!(on_thursday("post it on Decmber 5"), "2026-12-05 09:00");
    let d = parse("call the optician tommorow", &thursday()).unwrap().unwrap();
    assert_eq!((d.phrase.as_str(), d.rest.as_str()), ("tomorrow", "call the optician"));
}

#[test]
fn what_cannot_be_read_is_named_never_guessed() {
    for (text, phrase) in [
        ("call the bank on the 45th", "on the 45th"),
        ("on the 32nd", "on the 32nd"),
        ("move it to next Smarch", "next Smarch"),
        ("on February 30", "on February 30"),
        ("call Sam at 25:00", "at 25:00"),
        ("at 13pm", "at 13pm"),
        ("on 3/4", "on 3/4"),
        ("book the holiday in June", "in June"),
        ("call mom on Tuesdays", "on Tuesdays"),
        ("buy milk tomorrow and call the council on the 45th", "on the 45th"),
        ("set an alarm for 6pm in 30 minutes", "6pm in 30 minutes"),
    ] {
        assert_eq!(on_thursday(text), format!("unreadable: {phrase}"), "{text}");
    }
    // Two ways of saying one time are one time.
    assert_eq!(on_thursday("alarm for 3pm in 30 minutes"), "2026-11-26 15:00");
    let e = parse("on the 45th", &thursday()).unwrap_err().to_string();
    assert_eq!(e, "I can't read “on the 45th” as a date: no month has a 45th");
    let e = parse("on February 30", &thursday()).unwrap_err().to_string();
    assert!(e.ends_with("February has no 30th"), "{e}");
    let e = parse("next Smarch", &thursday()).unwrap_err().to_string();
    assert!(e.contains("“Smarch” is not a month"), "{e}");
}

#[test]
fn a_past_date_is_said_so() {
    for (text, phrase) in [
        ("file taxes on March 3, 2025", "on March 3, 2025"),
        ("send the card on November 20", "on November 20"),
        ("book the venue by yesterday", "by yesterday"),
        ("submit the form today at 9am", "today at 9am"),
        ("this morning", "this morning"),
    ] {
        assert_eq!(on_thursday(text), format!("past: {phrase}"), "{text}");
    }
    let e = parse("on March 3, 2025", &thursday()).unwrap_err().to_string();
    assert_eq!(e, "“on March 3, 2025” is in the past (Mon 3 Mar 2025, 09:00)");
    // Late in the evening, "tonight" and "today" mean the next full hour, while there is one.
    let late: Zoned = "2026-11-26T21:10:00[Europe/Paris]".parse().unwrap();
    assert_eq!(parse("tonight", &late).unwrap().unwrap().at.strftime("%H:%M").to_string(), "22:00");
    let later: Zoned = "2026-11-26T23:10:00[Europe/Paris]".parse().unwrap();
    assert!(matches!(parse("tonight", &later), Err(WhenError::Past { .. })));
}

#[test]
fn shifts_read_a_span() {
    let s = shift("snooze the plants reminder by an hour").unwrap();
    assert_eq!((s.span.fieldwise(), s.rest.as_str()), (1.hour().fieldwise(), "snooze the plants reminder"));
    assert_eq!(shift("push the passport back a week").unwrap().span.fieldwise(), 1.week());
    assert_eq!(shift("delay it by two days").unwrap().span.fieldwise(), 2.days());
    assert_eq!(shift("snooze the plumber for 2 hours").unwrap().rest, "snooze the plumber");
    assert!(shift("move the plumber to Monday").is_none());
}

proptest! {
    /// Whatever the text, reading it never panics, and a due time found is after now.
    #[test]
    fn any_text_is_read_without_panic(text in "\\PC{0,80}") {
        if let Ok(Some(d)) = parse(&text, &thursday()) {
            prop_assert!(d.at > thursday());
        }
        let _ = shift(&text);
        let _ = every(&text, &thursday());
    }

    /// Date-like text (numbers, month and day names, the words around them) never panics
    /// either, and an error always names a phrase from the text.
    #[test]
    fn date_like_text_is_read_without_panic(
        parts in proptest::collection::vec(
            prop_oneof![
                "(on|by|the|next|this|every|in|at|to|of|until) ",
                "[0-9]{1,4}(st|nd|rd|th|am|pm|:[0-9]{2})? ",
                "(jan|feb|march|may|june|sept|dec|Smarch|Decmber|febuary) ",
                "(mon|tue|friday|sunday|wendesday|tomorow|tonight|today|yesterday|weekend|week|month) ",
                "(morning|evening|night|hours|days|minutes|other|half an hour) ",
                "[0-9]{1,2}/[0-9]{1,2}(/[0-9]{2,4})? ",
            ],
            0..8,
        )
    ) {
        let text: String = parts.concat();
        match parse(&text, &thursday()) {
            Ok(Some(d)) => prop_assert!(d.at > thursday()),
            Ok(None) => {}
            Err(e) => prop_assert!(!e.phrase().is_empty() || text.trim().is_empty(), "{e}"),
        }
        let _ = every(&text, &thursday());
    }
}

/// Thursday 26 November 2026 at `hm` in Paris.
fn thursday_at(hm: &str) -> Zoned {
    format!("2026-11-26T{hm}:00[Europe/Paris]").parse().unwrap()
}

/// Just the time, at `hm` on Thursday.
fn at_hm(text: &str, hm: &str) -> String {
    match parse(text, &thursday_at(hm)) {
        Ok(Some(d)) => d.at.strftime("%Y-%m-%d %H:%M").to_string(),
        Ok(None) => "none".into(),
        Err(WhenError::Unreadable { phrase, .. }) => format!("unreadable: {phrase}"),
        Err(WhenError::Past { phrase, .. }) => format!("past: {phrase}"),
    }
}

#[test]
fn number_words_as_speech_to_text_writes_them() {
    for (text, want) in [
        ("call the bank tomorrow at ten am", "2026-11-27 10:00"),
        ("three thirty pm", "2026-11-26 15:30"),
        ("two thirty pm", "2026-11-27 14:30"),
        ("call mom seven fifteen", "2026-11-26 19:15"),
        ("half past six", "2026-11-26 18:30"),
        ("quarter to nine", "2026-11-26 20:45"),
        ("quarter past five", "2026-11-26 17:15"),
        ("five o'clock", "2026-11-26 17:00"),
        ("lunch at noon", "2026-11-27 12:00"),
        ("lock up at midnight", "2026-11-27 00:00"),
        ("at twelve thirty", "2026-11-27 12:30"),
        ("in twenty minutes", "2026-11-26 14:50"),
        ("in an hour", "2026-11-26 15:30"),
        ("in half an hour", "2026-11-26 15:00"),
        ("in a couple of hours", "2026-11-26 16:30"),
        ("in two days", "2026-11-28 14:30"),
        ("the thirteenth", "2026-12-13 09:00"),
        ("the twenty first", "2026-12-21 09:00"),
        ("feb four", "2027-02-04 09:00"),
        ("february fourth", "2027-02-04 09:00"),
        ("sunday the twentieth", "2026-12-20 09:00"),
        ("monday the twenty first", "2026-12-21 09:00"),
        ("monday the twentieth", "unreadable: monday the 20th"),
        ("march 3rd", "2027-03-03 09:00"),
    ] {
        assert_eq!(on_thursday(text), want, "{text}");
    }
    let e = parse("monday the twentieth", &thursday()).unwrap_err().to_string();
    assert!(e.ends_with("the 20th is a Sunday (20 December 2026)"), "{e}");
}

#[test]
fn what_is_left_is_cut_from_the_words_as_said() {
    assert_eq!(
        at("call the bank tomorrow at half past ten", &thursday()),
        "2026-11-27 10:30 | tomorrow at 10:30 | call the bank"
    );
    assert_eq!(at("call one client tmrw", &thursday()), "2026-11-27 09:00 | tomorrow | call one client");
    assert_eq!(
        at("buy two twenty packs of paper at five", &thursday()),
        "2026-11-26 17:00 | at 5 | buy two twenty packs of paper"
    );
    assert_eq!(
        at("read chapter ten on the twenty first", &thursday()),
        "2026-12-21 09:00 | on the 21st | read chapter ten"
    );
    assert_eq!(
        at("☕ tmrw at half past six ☕ call Zoë", &thursday()),
        "2026-11-27 18:30 | tomorrow at 6:30 | ☕ ☕ call Zoë"
    );
    assert_eq!(at("call Sam at 9.30", &thursday()), "2026-11-26 21:30 | at 9:30 | call Sam");
    assert_eq!(
        at("call the tommorow people at five", &thursday()),
        "2026-11-27 17:00 | tomorrow at 5 | call the people"
    );
}

#[test]
fn shorthand_people_type() {
    for (text, want) in [
        ("tmrw", "2026-11-27 09:00"),
        ("tmr", "2026-11-27 09:00"),
        ("tomoz", "2026-11-27 09:00"),
        ("2moro", "2026-11-27 09:00"),
        ("tonite", "2026-11-26 20:00"),
        ("on thurs", "2026-12-03 09:00"),
        ("by thur", "2026-12-03 09:00"),
        ("on weds", "2026-12-02 09:00"),
        ("tues", "2026-12-01 09:00"),
        ("eod", "2026-11-26 17:00"),
        ("by end of day", "2026-11-26 17:00"),
        ("this arvo", "2026-11-26 15:00"),
        ("at 9.30", "2026-11-26 21:30"),
        ("9:30am", "2026-11-27 09:30"),
        ("9 30 pm", "2026-11-26 21:30"),
        ("at 3p", "2026-11-26 15:00"),
        ("at 10a", "2026-11-27 10:00"),
    ] {
        assert_eq!(on_thursday(text), want, "{text}");
    }
}

#[test]
fn parts_of_the_day_still_under_way_mean_later_in_them() {
    for (text, hm, want) in [
        ("tonight", "14:30", "2026-11-26 20:00"),
        ("this afternoon at five", "14:30", "2026-11-26 17:00"),
        ("this evening", "14:30", "2026-11-26 18:00"),
        ("tomorrow morning", "14:30", "2026-11-27 09:00"),
        ("this afternoon", "11:00", "2026-11-26 14:00"),
        ("this afternoon", "16:20", "2026-11-26 17:00"),
        ("this afternoon", "17:40", "2026-11-26 18:00"),
        ("this afternoon", "18:10", "past: this afternoon"),
        ("this morning", "10:05", "2026-11-26 11:00"),
        ("this morning", "12:05", "past: this morning"),
        ("this evening", "21:30", "2026-11-26 22:00"),
        ("tonight", "22:10", "2026-11-26 23:00"),
        ("tonight at ten", "14:30", "2026-11-26 22:00"),
    ] {
        assert_eq!(at_hm(text, hm), want, "{text} at {hm}");
    }
}

#[test]
fn days_said_around_tomorrow_and_weeks() {
    for (text, want) in [
        ("the day after tomorrow", "2026-11-28 09:00"),
        ("day after tomorrow at 4", "2026-11-28 16:00"),
        ("a week from today", "2026-12-03 09:00"),
        ("a week from tomorrow", "2026-12-04 09:00"),
        ("a week from now", "2026-12-03 14:30"),
        ("in a week", "2026-12-03 14:30"),
        ("next tuesday", "2026-12-01 09:00"),
        ("this friday", "2026-11-27 09:00"),
        ("by thurs", "2026-12-03 09:00"),
        ("on the 13th", "2026-12-13 09:00"),
        ("the 13th of march", "2027-03-13 09:00"),
    ] {
        assert_eq!(on_thursday(text), want, "{text}");
    }
    assert_eq!(
        at("send the slides the day after tomorrow", &thursday()),
        "2026-11-28 09:00 | the day after tomorrow | send the slides"
    );
    // "by thurs" is a due date, never a repeat.
    assert_eq!(every("pay the plumber by thurs", &thursday()), Ok(None));
}

#[test]
fn a_bare_hour_is_the_next_such_hour_unless_a_day_is_said() {
    for (text, hm, want) in [
        ("at 5", "16:20", "2026-11-26 17:00"),
        ("at 5", "03:00", "2026-11-26 05:00"),
        ("at 7:30", "08:00", "2026-11-26 19:30"),
        ("at 7:30", "06:00", "2026-11-26 07:30"),
        ("at 12", "14:30", "2026-11-27 12:00"),
        ("at 07:30", "08:00", "2026-11-27 07:30"),
        ("at 19:00", "08:00", "2026-11-26 19:00"),
        ("today at 7", "14:30", "2026-11-26 19:00"),
        ("today at 7", "06:00", "2026-11-26 07:00"),
        ("tomorrow at 7", "14:30", "2026-11-27 07:00"),
        ("tomorrow at 11", "14:30", "2026-11-27 11:00"),
        ("tomorrow at 12", "14:30", "2026-11-27 12:00"),
        ("tomorrow at 5", "14:30", "2026-11-27 17:00"),
        ("tomorrow at 5am", "14:30", "2026-11-27 05:00"),
        ("tomorrow evening at 7", "14:30", "2026-11-27 19:00"),
        ("tomorrow morning at 5", "14:30", "2026-11-27 05:00"),
    ] {
        assert_eq!(at_hm(text, hm), want, "{text} at {hm}");
    }
}

#[test]
fn snoozing_spans_as_said() {
    for (text, want) in [
        ("30 minutes", 30.minutes()),
        ("for half an hour", 30.minutes()),
        ("an hour", 1.hour()),
        ("ten minutes", 10.minutes()),
        ("snooze the plumber 30 minutes", 30.minutes()),
        ("for twenty minutes", 20.minutes()),
        ("a couple of hours", 2.hours()),
    ] {
        assert_eq!(shift(text).map(|s| s.span.fieldwise()), Some(want.fieldwise()), "{text}");
    }
    assert_eq!(shift("snooze the plumber 30 minutes").unwrap().rest, "snooze the plumber");
    assert_eq!(shift("snooze the plumber for ten minutes").unwrap().rest, "snooze the plumber");
    assert!(shift("in 2 days").is_none(), "a due time, not a span");
    assert!(shift("postpone the 3 day trip to friday").is_none());
}

#[test]
fn odd_text_is_read_without_panic() {
    let long = "twenty ".repeat(5000) + "tomorrow at half past " + &"nine ".repeat(5000);
    let texts = [
        "\u{0}\u{1}\u{7f}\u{feff}at 9.30\u{0}",
        "🙂 tomorrow at 🕐 five 🙂",
        "at ５ tomorrow",
        "at 9.𝟘𝟘",
        "quarter to one",
        "half past twelve",
        "twenty to one",
        "the thirtieth of february",
        "monday the thirty first of february",
        "at 99.99",
        "at 0.00",
        "9 99 pm",
        "in 99999999999999999999 minutes",
        "ǅ tmrw ǅ at nine ǅ",
        "é",
        "",
        " ",
        "@",
        "at",
        "a week from",
        long.as_str(),
    ];
    for text in texts {
        let _ = parse(text, &thursday());
        let _ = every(text, &thursday());
        let _ = shift(text);
        let n = numbers::normalize(text);
        assert!(text.get(n.original(0..n.text.len())).is_some(), "{text}");
    }
    assert_eq!(on_thursday("quarter to one"), "2026-11-27 12:45");
}

#[test]
fn late_hours_tonight_are_after_midnight_and_at_signs_are_read() {
    assert_eq!(on_thursday("dinner tonight at 12"), "2026-11-27 00:00");
    assert_eq!(on_thursday("tonight at one"), "2026-11-27 01:00");
    assert_eq!(on_thursday("tonight at 11"), "2026-11-26 23:00");
    assert_eq!(at("@ 5pm", &thursday()), "2026-11-26 17:00 | @ 5pm | ");
    assert_eq!(at("call Ana @5pm", &thursday()), "2026-11-26 17:00 | @5pm | call Ana");
    // Two number words alone are a time only as a quarter or a half hour ("seven fifteen").
    assert_eq!(on_thursday("pay him two fifty"), "none");
    assert_eq!(on_thursday("pay him at two fifty"), "2026-11-26 14:50");
}

proptest! {
    /// Any range of the rewritten text maps back to a slice of the original.
    #[test]
    fn the_way_back_always_lands_in_the_original(text in "(\\PC|tmrw|half past |twenty |at |9\\.30 |the |first )*") {
        let n = numbers::normalize(&text);
        let ends: Vec<usize> = (0..=n.text.len()).filter(|i| n.text.is_char_boundary(*i)).collect();
        for (i, a) in ends.iter().enumerate() {
            for b in &ends[i..] {
                let r = n.original(*a..*b);
                prop_assert!(text.get(r).is_some());
            }
        }
    }
}

/// "in the morning" with no day is the next morning; "lunchtime" is noon.
#[test]
fn the_next_part_of_the_day_and_lunchtime() {
    assert_eq!(on_thursday("get my prescription in the morning"), "2026-11-27 09:00");
    assert_eq!(on_thursday("call the bank in the evening"), "2026-11-26 18:00");
    assert_eq!(on_thursday("at 7 in the morning"), "2026-11-27 07:00");
    assert_eq!(on_thursday("tomorrow in the afternoon"), "2026-11-27 14:00");
    assert_eq!(on_thursday("an alarm for lunchtime tomorrow"), "2026-11-27 12:00");
    assert_eq!(on_thursday("lunch time"), "2026-11-27 12:00");
}

/// A repeat with days left out ("every day except Saturday and Sunday") is asked about: read
/// without them it would go off on the days the person excluded.
#[test]
fn a_repeat_with_days_left_out_is_asked() {
    let now = thursday();
    for text in
        ["Wake up alarm for 7am every day except Saturday and Sunday", "wake me up at 10am every day excluding Sunday"]
    {
        assert!(matches!(every(text, &now), Err(WhenError::Unreadable { .. })), "{text}: {:?}", every(text, &now));
    }
}

/// Each text read on Thursday is due as said.
fn each_on_thursday(cases: &[(&str, &str)]) {
    for (text, want) in cases {
        assert_eq!(on_thursday(text), *want, "{text}");
    }
}

/// A holiday is a day like "friday": its next date at or after today (today's when it is
/// today), at 09:00 unless a time or a part of the day is said with it.
#[test]
fn holidays_are_days() {
    each_on_thursday(&[
        ("book hotel rooms for our family trip on christmas", "2026-12-25 09:00"),
        ("on Christmas at 8", "2026-12-25 08:00"),
        ("christmas morning", "2026-12-25 09:00"),
        ("on christmas day", "2026-12-25 09:00"),
        ("xmas", "2026-12-25 09:00"),
        ("christmas eve", "2026-12-24 09:00"),
        ("on christmas eve at 6pm", "2026-12-24 18:00"),
        ("new year's day", "2027-01-01 09:00"),
        ("new years day", "2027-01-01 09:00"),
        ("new year\u{2019}s eve", "2026-12-31 09:00"),
        ("new years eve at 11pm", "2026-12-31 23:00"),
        ("halloween", "2027-10-31 09:00"),
        ("valentine's day", "2027-02-14 09:00"),
        ("by valentines day", "2027-02-14 09:00"),
        ("independence day", "2027-07-04 09:00"),
        ("thanksgiving at 7pm", "2026-11-26 19:00"),
        ("labor day", "2027-09-06 09:00"),
        ("labour day weekend", "2027-09-04 09:00"),
        ("memorial day", "2027-05-31 09:00"),
        ("mother's day", "2027-05-09 09:00"),
        ("mothers day", "2027-05-09 09:00"),
        ("on father's day", "2027-06-20 09:00"),
        ("easter", "2027-03-28 09:00"),
        ("on easter sunday", "2027-03-28 09:00"),
        ("easter monday", "2027-03-29 09:00"),
        ("good friday", "2027-03-26 09:00"),
        ("boxing day", "2026-12-26 09:00"),
        ("st patrick's day", "2027-03-17 09:00"),
        // Today's, even once its default hour has passed: asked, never a year on.
        ("thanksgiving", "past: thanksgiving"),
        ("set a reminder for christmas", "2026-12-25 09:00"),
        ("at christmas", "2026-12-25 09:00"),
        ("create an alarm to christmas at noon", "2026-12-25 12:00"),
        ("remind me to say merry christmas to grandma on friday", "2026-11-27 09:00"),
        // A holiday that only names a thing is no day.
        ("buy a christmas tree", "none"),
        ("is there a reminder set for christmas shopping", "none"),
        ("drive to the christmas party", "none"),
        ("send a card to wish mom's christmas", "none"),
        ("message Sam happy new years", "none"),
        ("the weather at Christmas Island", "none"),
        ("any computer sales on christmas week", "none"),
        ("halloween costume for Sam", "none"),
        ("buy a mother's day card", "none"),
        ("paint easter eggs", "none"),
    ]);
    assert_eq!(on_thursday("thanksgiving"), "past: thanksgiving");
    assert_eq!(at("thanksgiving", &monday()), "2026-11-26 09:00 | thanksgiving | ");
    assert_eq!(
        at("call grandma on christmas eve at 8", &thursday()),
        "2026-12-24 08:00 | on christmas eve at 8 | call grandma"
    );
    // "every Christmas" is not once, "the day before Valentine's Day" not that day: asked.
    assert_eq!(on_thursday("call grandma every christmas"), "unreadable: every christmas");
    assert_eq!(
        on_thursday("a meeting the day before valentines day at 3 pm"),
        "unreadable: the day before valentines day"
    );
}

#[test]
fn easter_by_the_anonymous_gregorian_algorithm() {
    for (year, month, day) in [(2024, 3, 31), (2025, 4, 20), (2026, 4, 5), (2027, 3, 28), (2038, 4, 25), (2285, 3, 22)]
    {
        assert_eq!(holidays::easter(year), Date::new(year, month, day).ok(), "{year}");
    }
}

/// Meals and bed said as times of day, one table: breakfast 08:00, lunch 12:00, dinner 19:00,
/// bed 22:00; an hour before or after.
#[test]
fn meals_and_bed_are_times_of_day() {
    each_on_thursday(&[
        ("at lunch", "2026-11-27 12:00"),
        ("at lunchtime", "2026-11-27 12:00"),
        ("lunch time", "2026-11-27 12:00"),
        ("after lunch", "2026-11-27 13:00"),
        ("before lunch", "2026-11-27 11:00"),
        ("at dinner", "2026-11-26 19:00"),
        ("dinnertime", "2026-11-26 19:00"),
        ("after dinner", "2026-11-26 20:00"),
        ("at breakfast", "2026-11-27 08:00"),
        ("after breakfast", "2026-11-27 09:00"),
        ("before bed", "2026-11-26 21:00"),
        ("before going to bed", "2026-11-26 21:00"),
        ("at bedtime", "2026-11-26 22:00"),
        ("tuesday after lunch", "2026-12-01 13:00"),
        ("tomorrow at breakfast", "2026-11-27 08:00"),
        ("on friday at dinner time", "2026-11-27 19:00"),
        ("2 hours before bedtime", "2026-11-26 20:00"),
        ("an hour before dinner", "2026-11-26 18:00"),
        ("thirty minutes after lunch on friday", "2026-11-27 12:30"),
        ("friday lunchtime", "2026-11-27 12:00"),
        ("put lunchtime alarm on", "2026-11-27 12:00"),
        ("call my sister tomorrow during my lunch break", "2026-11-27 12:00"),
        // Meals that are the thing to do stay in the task.
        ("lunch with Sam", "none"),
        ("book dinner for two", "none"),
        ("read a bedtime story", "none"),
        ("add carmel to my lunchtime playlist", "none"),
        ("set an alarm called bed time", "none"),
        ("cancel my bed time alarm", "none"),
        ("please add to my tasks: Bedtime", "none"),
        ("set an alarm for 2 hours before my dinner date", "none"),
        // A clock time said beside a meal is the time.
        ("go to the bank during lunch at 1pm", "2026-11-27 13:00"),
        ("set my bedtime for 10:30pm", "2026-11-26 22:30"),
        ("bump do yoga before bed to saturday at 10am", "2026-11-28 10:00"),
    ]);
    assert_eq!(
        at("walk the neighbor's dog on tuesday after lunch", &thursday()),
        "2026-12-01 13:00 | on tuesday at 1pm | walk the neighbor's dog"
    );
    assert_eq!(at("take the pills at bedtime", &thursday()), "2026-11-26 22:00 | at 10pm | take the pills");
    assert_eq!(every("every day after lunch", &thursday()).unwrap().unwrap().cron, "0 13 * * *");
}

/// Clock times as typed and as speech-to-text spells them: "8:45a", "1a m", "eight forty five
/// a", "12 mn". A lone "a" is read as am only right after a clock and where no article could
/// be.
#[test]
fn clock_forms_typed_short_and_spoken() {
    each_on_thursday(&[
        ("add an alarm for 8:45a", "2026-11-27 08:45"),
        ("8:45p", "2026-11-26 20:45"),
        ("alarm for 8a", "2026-11-27 08:00"),
        ("wake me at 6a tomorrow", "2026-11-27 06:00"),
        ("1a m", "2026-11-27 01:00"),
        ("set an alarm for eight forty five a", "2026-11-27 08:45"),
        ("wake me up at eight a tomorrow", "2026-11-27 08:00"),
        ("alarm at seven thirty p", "2026-11-26 19:30"),
        ("at 12 mn", "2026-11-27 00:00"),
        ("twelve mn", "2026-11-27 00:00"),
        ("at 12 nn", "2026-11-27 12:00"),
        ("alarm 8.30", "2026-11-26 20:30"),
        ("set an alarm for 6.45", "2026-11-26 18:45"),
        ("wake me up 7.15 tomorrow", "2026-11-27 07:15"),
        ("move the alarm from saturday 1p", "2026-11-28 13:00"),
        ("set alarm for 3:00p.m", "2026-11-26 15:00"),
        ("delete 1:00a.m alarm", "2026-11-27 01:00"),
    ]);
    assert_eq!(at("Add 6:00p.m alarm", &thursday()), "2026-11-26 18:00 | 6:00p.m | Add alarm");
    // "a" as an article stays one.
    assert_eq!(
        at("set an alarm at 8 a week from now", &thursday()),
        "2026-12-03 08:00 | at 8 a week from now | set an alarm"
    );
    assert_eq!(at("meet in room 4a", &thursday()), "none");
    assert_eq!(on_thursday("buy a coffee for 2.50"), "none");
    assert_eq!(on_thursday("alarm for 8.30 euros"), "none");
    assert_eq!(on_thursday("set an alarm at 8 a day before the trip"), "unreadable: a day before");
}

/// A day of the month said as an ordinal word before its month, without "of".
#[test]
fn ordinal_words_before_a_month() {
    each_on_thursday(&[
        ("on fourteenth july", "2027-07-14 09:00"),
        ("wake me up at seven on fourteenth july", "2027-07-14 07:00"),
        ("by third march", "2027-03-03 09:00"),
        ("14th july", "2027-07-14 09:00"),
        ("the 3rd march", "2027-03-03 09:00"),
        ("the fourth of july", "2027-07-04 09:00"),
        ("our fifth march on the capital", "none"),
    ]);
}

/// A span before or after a clock time is the time that much earlier or later.
#[test]
fn a_span_before_or_after_a_clock_time() {
    each_on_thursday(&[
        ("15 minutes before 4:30 pm", "2026-11-26 16:15"),
        ("fifteen minutes before four thirty pm", "2026-11-26 16:15"),
        ("half an hour before 7pm", "2026-11-26 18:30"),
        ("an hour before 7pm", "2026-11-26 18:00"),
        ("10 minutes after 6pm", "2026-11-26 18:10"),
        ("10 minutes after 6", "2026-11-26 18:10"),
        ("15 minutes before 16:30", "2026-11-26 16:15"),
        ("20 minutes before 7:30", "2026-11-26 19:10"),
        ("10 minutes before noon", "2026-11-27 11:50"),
        ("5 minutes before midnight", "2026-11-26 23:55"),
        ("twenty minutes before 8am tomorrow", "2026-11-27 07:40"),
        ("on friday 15 minutes before 9:30 am", "2026-11-27 09:15"),
        ("quarter past five", "2026-11-26 17:15"),
    ]);
    assert_eq!(
        at("remind me fifteen minutes before four thirty pm", &thursday()),
        "2026-11-26 16:15 | at 4:15pm | remind me"
    );
}

#[test]
fn a_clock_of_24_hours_as_the_forces_write_it() {
    assert_eq!(on_thursday("have the alarm go off at 0800 hours"), "2026-11-27 08:00");
    assert_eq!(on_thursday("call mum at 1530 hrs"), "2026-11-26 15:30");
    assert_eq!(on_thursday("wake me at 0630"), "2026-11-27 06:30");
    assert_eq!(on_thursday("Set an alarm for 1800"), "2026-11-26 18:00");
    assert_eq!(on_thursday("an alarm at 1730 tomorrow"), "2026-11-27 17:30");
    // A year, an amount, a street number, an hour a 12-hour clock also has after "for": no clock.
    assert_eq!(on_thursday("in 2027"), "none");
    assert_eq!(on_thursday("pay the 1800 dollars"), "none");
    assert_eq!(on_thursday("lunch at 1800 Main Street"), "none");
    assert_eq!(on_thursday("a timer for 1000"), "none");
}

#[test]
fn later_today_and_a_weekday_of_next_week() {
    assert_eq!(due("pick up carrots later today"), "2026-11-23 17:00 | later today | pick up carrots");
    assert_eq!(on_thursday("check on the plants on wed next week"), "2026-12-02 09:00");
    assert_eq!(on_thursday("call the bank on friday next week"), "2026-12-04 09:00");
}

#[test]
fn hours_kept_within_a_window_of_the_day() {
    let now = thursday();
    let e = |t: &str| every(t, &now).map(|e| e.map(|e| (e.cron, e.rest)));
    assert_eq!(
        e("remind me to drink water every hour from 9am to 5pm"),
        Ok(Some(("0 9-17 * * *".into(), "remind me to drink water".into())))
    );
    assert_eq!(
        e("every 2 hours between 9 and 5 remind me to stretch"),
        Ok(Some(("0 9-17/2 * * *".into(), "remind me to stretch".into())))
    );
    assert_eq!(e("set hourly alarm from 7am to 10pm").map(|e| e.map(|e| e.0)), Ok(Some("0 7-22 * * *".into())));
    // A window across midnight, or minutes that do not line up, is asked about.
    assert!(e("every hour from 10pm to 2am remind me").is_err());
    assert!(e("every hour from 9:15 to 5:40 remind me to move").is_err());
}

#[test]
fn an_hour_said_before_tonight() {
    assert_eq!(on_thursday("cancel the reminder for five tonight"), "2026-11-26 17:00");
    assert_eq!(on_thursday("call mum at 9 tonight"), "2026-11-26 21:00");
}

#[test]
fn a_stretch_of_a_day_is_due_when_it_starts() {
    // SMCalFlow's test split: an event said by its two ends.
    assert_eq!(on_thursday("on Saturday from 10 am until 2 pm"), "2026-11-28 10:00");
    assert_eq!(on_thursday("for Tuesday from 9:00 am till 5:00 pm"), "2026-12-01 09:00");
    assert_eq!(on_thursday("tomorrow from 2-5 pm"), "2026-11-27 14:00");
    assert_eq!(on_thursday("tomorrow from 11 to 1 pm"), "2026-11-27 11:00");
    assert_eq!(on_thursday("friday between 8 and 10 am"), "2026-11-27 08:00");
    // Two times joined by "and" stay two; a repeat's window is the repeat's.
    assert!(at("on saturday for 8 am and 6 pm", &thursday()).ends_with("and 6 pm"));
    // The day of the month after its weekday, in words, is checked against it.
    assert!(
        matches!(parse("for seven on thursday eighth", &thursday()), Err(e) if e.to_string().contains("8th is a Tuesday"))
    );
}

/// A clock of another zone is read there and kept in the hub's (Paris, UTC+1 in November):
/// "11 am Eastern Time" is 17:00 here, "8 am PST" the next 8 am in Los Angeles. The zone's
/// words go with the time; a region's name that is a place stays in the words.
#[test]
fn a_time_zone_said_is_read_in_that_zone() {
    each_on_thursday(&[
        ("call Alan at 11 am Eastern Time next Monday", "2026-11-30 17:00"),
        ("call ella at 8 am PST", "2026-11-26 17:00"),
        ("pay rent at 9 am ET", "2026-11-26 15:00"),
        ("call bob at 3pm central tomorrow", "2026-11-27 22:00"),
        ("the webinar at 4pm (GMT)", "2026-11-26 17:00"),
        ("meet Pat at 2 pm IST on friday", "2026-11-27 09:30"),
        ("stand-up at 10am pacific standard time", "2026-11-26 19:00"),
    ]);
    assert_eq!(
        at("call Alan at 11 am Eastern Time next Monday", &thursday()),
        "2026-11-30 17:00 | at 11 am next Monday | call Alan"
    );
    assert_eq!(
        at("meet at 5 pm central park tomorrow", &thursday()),
        "2026-11-27 17:00 | at 5 pm tomorrow | meet central park"
    );
    // "et" in lower case is a word, not Eastern Time.
    assert_eq!(at("at 5 pm et cetera", &thursday()), "2026-11-26 17:00 | at 5 pm | et cetera");
}

/// "17h00", "4h00", "835h": a clock of 24 hours with the hours' "h"; spans said in minutes and
/// seconds, or a half minute.
#[test]
fn clock_h_and_spans_of_seconds() {
    each_on_thursday(&[
        ("an alarm for 4h00", "2026-11-27 04:00"),
        ("an alarm at 17h30", "2026-11-26 17:30"),
        ("sound alarm at 835h", "2026-11-27 08:35"),
        ("set an alarm for 1645h", "2026-11-26 16:45"),
        ("in one and a half minutes", "2026-11-26 14:31"),
        ("in 1 minute and 30 seconds", "2026-11-26 14:31"),
    ]);
    let s = shift("a timer for one minute and thirty seconds").unwrap();
    assert_eq!(s.span.fieldwise(), Span::new().seconds(90).fieldwise());
    let s = shift("a timer for one and a half minutes").unwrap();
    assert_eq!(s.span.fieldwise(), Span::new().seconds(90).fieldwise());
}

/// KVRET's drivers: "at 6 pm on the tenth with sales team" (the ordinal day before "with"),
/// "later this week at 5pm" (the week's words all go with the time).
#[test]
fn an_ordinal_day_before_with_and_later_this_week() {
    assert_eq!(
        at("a conference at 6 pm on the tenth with sales team", &thursday()),
        "2026-12-10 18:00 | at 6 pm on the 10th | a conference with sales team"
    );
    assert_eq!(at("call jo later this week at 5pm", &thursday()), "2026-11-27 17:00 | this week at 5pm | call jo");
}
