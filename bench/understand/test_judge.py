"""Unit tests of the judge's pure parts (no cn binary):
~/.cache/cn/judge-venv/bin/python -m unittest bench/understand/test_judge.py"""

import datetime as dt
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402
import timeref  # noqa: E402

NOW = dt.datetime(2026, 11, 26, 14, 30)


def line(text, intent, **slots):
    ss = []
    for name, words in slots.items():
        s = text.find(words)
        ss.append({"slot": name, "start": s, "end": s + len(words), "text": words})
    return {"text": text, "intent": intent, "slots": ss, "source": "t"}


def add(text, due):
    return {"kind": "add", "id": "task-new", "text": text, "due": due}


class Numbers(unittest.TestCase):
    def test_the_brief_s_examples(self):
        self.assertEqual(timeref.number_words("ten am"), "10 am")
        self.assertEqual(timeref.number_words("two thirty pm"), "2:30 pm")
        self.assertEqual(timeref.number_words("half past six"), "6:30")
        self.assertEqual(timeref.number_words("noon"), "12:00")
        self.assertEqual(timeref.number_words("quarter to nine"), "8:45")
        self.assertEqual(timeref.number_words("in two hours"), "in 2 hours")
        self.assertEqual(timeref.number_words("on the third"), "on the 3rd")


class Reference(unittest.TestCase):
    def cands(self, phrase):
        r = timeref.reference(phrase, NOW)
        fmt = "%Y-%m-%d %H:%M" if r.granularity == "minute" else "%Y-%m-%d"
        return r.granularity, sorted(c.strftime(fmt) for c in r.candidates)

    def test_minute(self):
        self.assertEqual(self.cands("tomorrow at 10am"), ("minute", ["2026-11-27 10:00"]))
        self.assertEqual(self.cands("at 5pm"), ("minute", ["2026-11-26 17:00"]))
        self.assertEqual(self.cands("in 45 minutes"), ("minute", ["2026-11-26 15:15"]))
        self.assertEqual(self.cands("Dec 4 at 3pm"), ("minute", ["2026-12-04 15:00"]))
        self.assertEqual(self.cands("ten am"), ("minute", ["2026-11-27 10:00"]))  # passed today
        self.assertEqual(self.cands("tomorrow at 3"), ("minute", ["2026-11-27 03:00", "2026-11-27 15:00"]))

    def test_day(self):
        self.assertEqual(self.cands("by Friday"), ("day", ["2026-11-27"]))
        self.assertEqual(self.cands("next Friday"), ("day", ["2026-11-27", "2026-12-04"]))
        self.assertEqual(self.cands("the 3rd"), ("day", ["2026-12-03"]))
        self.assertEqual(self.cands("Thursday"), ("day", ["2026-11-26", "2026-12-03"]))
        self.assertEqual(self.cands("tomorrow evening"), ("day", ["2026-11-27"]))

    def test_unchecked(self):
        self.assertEqual(self.cands("next week")[0], "unchecked")
        self.assertEqual(self.cands("end of the month")[0], "unchecked")
        self.assertEqual(self.cands("on the 45th")[0], "unchecked")


class Judging(unittest.TestCase):
    def j(self, l, got, answer="", target=None):
        return judge.judge(l, got, answer, target, timeref)[0]

    def test_add_exact_and_wrong(self):
        l = line("remind me to call the bank tomorrow at 10am", "add", what="call the bank", when="tomorrow at 10am")
        self.assertEqual(self.j(l, [add("call the bank", "2026-11-27T09:00:00Z")]), "exact")
        self.assertEqual(self.j(l, [add("call the bank", "2026-11-27T10:00:00Z")]), "wrong")  # 11:00 Paris
        self.assertEqual(self.j(l, [add("call the bank tomorrow", "2026-11-27T09:00:00Z")]), "wrong")  # time in text
        self.assertEqual(self.j(l, [add("call mum", "2026-11-27T09:00:00Z")]), "wrong")
        self.assertEqual(self.j(l, []), "asked")
        self.assertEqual(self.j(l, [], "I can't do that myself: it needs an executive model, and no executive is configured."), "handed_up")
        two = [add("call the bank", "2026-11-27T09:00:00Z"), {"kind": "cancel", "id": "task-x", "text": "renew passport"}]
        self.assertEqual(self.j(l, two), "wrong")

    def test_add_without_time_must_have_no_due(self):
        l = line("add buy ink to my list", "add", what="buy ink")
        self.assertEqual(self.j(l, [add("buy ink", None)]), "exact")
        self.assertEqual(self.j(l, [add("buy ink", "2026-11-27T08:00:00Z")]), "wrong")

    def test_recur(self):
        l = line("every Monday at 9am remind me to water the orchids", "add", recur="every Monday", when="at 9am", what="water the orchids")
        ev = {"kind": "every", "id": "x", "text": "water the orchids", "cron": "0 9 * * 1"}
        self.assertEqual(self.j(l, [ev]), "exact")
        self.assertEqual(self.j(l, [dict(ev, cron="0 9 * * 2")]), "wrong")
        self.assertEqual(self.j(l, [add("water the orchids", "2026-11-30T08:00:00Z")]), "wrong")

    def test_a_strided_or_ended_repeat_must_say_so(self):
        l = line("remind me every other friday at 7am to check the bank", "add", recur="every other friday", when="at 7am", what="check the bank")
        ev = {"kind": "every", "id": "x", "text": "check the bank", "cron": "0 7 * * 5", "stride": 2}
        self.assertEqual(self.j(l, [ev]), "exact")
        self.assertEqual(self.j(l, [dict(ev, stride=None)]), "wrong")
        l = line("remind me to water the plants every 3 days", "add", recur="every 3 days", what="water the plants")
        ev = {"kind": "every", "id": "x", "text": "water the plants", "cron": "0 9 * * *", "stride": 3}
        self.assertEqual(self.j(l, [ev]), "exact")
        self.assertEqual(self.j(l, [dict(ev, stride=2)]), "wrong")
        l = line("remind me every day at 8am for the next 5 days to take pills", "add", recur="every day", when="at 8am", what="take pills")
        ev = {"kind": "every", "id": "x", "text": "take pills", "cron": "0 8 * * *", "until": "2026-12-01T13:30:00Z"}
        self.assertEqual(self.j(l, [ev]), "exact")
        self.assertEqual(self.j(l, [dict(ev, until=None)]), "wrong")
        l = line("every Monday at 9am remind me to water the orchids", "add", recur="every Monday", when="at 9am", what="water the orchids")
        ev = {"kind": "every", "id": "x", "text": "water the orchids", "cron": "0 9 * * 1", "stride": 2}
        self.assertEqual(self.j(l, [ev]), "wrong")
        self.assertTrue(judge.end_said("set my alarm to go off every thirty minutes for two hours"))
        self.assertTrue(judge.end_said("set alarm for every hour for next 5 hours"))
        self.assertTrue(judge.end_said("remind me every day until friday"))
        self.assertFalse(judge.end_said("Set up 7 AM Wake Up Time from Monday through Friday"))
        self.assertFalse(judge.end_said("set a recurring alarm for six am monday through friday"))

    def test_a_list_of_days_is_an_alarm_a_day(self):
        l = line("Create an alarm for Sunday, Monday, and Tuesday at 3PM", "add", when="Sunday, Monday, and Tuesday at 3PM")
        three = [add("Alarm", "2026-11-29T14:00:00Z"), add("Alarm", "2026-11-30T14:00:00Z"), add("Alarm", "2026-12-01T14:00:00Z")]
        self.assertEqual(self.j(l, three), "exact")
        self.assertEqual(self.j(l, three[:2]), "wrong")
        self.assertEqual(self.j(l, [{"kind": "every", "id": "x", "text": "Alarm", "cron": "0 15 * * 0,1,2"}]), "wrong")
        self.assertIsNone(judge.day_list("every Monday and Friday at 7 am", timeref))
        self.assertIsNone(judge.day_list("on Mondays and Fridays at 7 am", timeref))

    def test_a_reminder_a_span_before_a_thing(self):
        l = line("Set reminder for sports physicals August 16th at 1 pm. Remind me 2 hours before.", "add",
                 what="sports physicals August 16th at 1 pm", when="2 hours before")
        self.assertEqual(self.j(l, [add("sports physicals", "2027-08-16T09:00:00Z")]), "exact")
        self.assertEqual(self.j(l, [add("sports physicals", "2027-08-16T11:00:00Z")]), "wrong")
        l = {"text": "Colby's dinner party is at 6pm in 2 days; can you remind me 15 mins before", "intent": "add", "source": "t",
             "slots": [{"slot": "what", "text": "Colby's dinner party"}, {"slot": "when", "text": "at 6pm in 2 days"},
                       {"slot": "when", "text": "15 mins before"}]}
        self.assertEqual(self.j(l, [add("Colby's dinner party", "2026-11-28T16:45:00Z")]), "exact")
        self.assertEqual(self.j(l, [add("Colby's dinner party", "2026-11-28T17:00:00Z")]), "wrong")
        spoken = dict(l, slots=[dict(x, text=x["text"].replace("15", "fifteen").replace("6pm", "six pm").replace("2 days", "two days")) for x in l["slots"]])
        self.assertEqual(self.j(spoken, [add("Colby's dinner party", "2026-11-28T16:45:00Z")]), "exact")

    def test_targets(self):
        l = line("done with the car insurance", "complete", item="the car insurance")
        self.assertEqual(self.j(l, [{"kind": "done", "id": "task-t", "text": "car insurance"}], target="task-t"), "exact")
        self.assertEqual(self.j(l, [{"kind": "cancel", "id": "task-t", "text": "car insurance"}], target="task-t"), "wrong")
        self.assertEqual(self.j(l, [{"kind": "done", "id": "task-o", "text": "renew passport"}], target="task-t"), "wrong")
        m = line("move the electrician to Monday at 3pm", "move", item="the electrician", when="Monday at 3pm")
        mv = {"kind": "move", "id": "task-t", "text": "electrician", "due": "2026-11-30T14:00:00Z"}
        self.assertEqual(self.j(m, [mv], target="task-t"), "exact")
        self.assertEqual(self.j(m, [dict(mv, due="2026-11-30T15:00:00Z")], target="task-t"), "wrong")

    def test_read_only_and_none(self):
        self.assertEqual(self.j(line("what's on my list?", "list"), []), "exact")
        self.assertEqual(self.j(line("hi", "smalltalk"), [], "I can't do that myself: it needs an executive model"), "handed_up")
        self.assertEqual(self.j(line("book a table", "none"), [], "needs an executive"), "exact")
        self.assertEqual(self.j(line("book a table", "none"), [add("book a table", None)]), "wrong")


class DataForms(unittest.TestCase):
    def j(self, l, got, answer="", target=None):
        return judge.judge(l, got, answer, target, timeref)[0]

    def test_a_recurring_when_is_a_recur(self):
        l = line("set alarm for 1pm every weekend", "add", when="for 1pm every weekend")
        ev = {"kind": "every", "id": "x", "text": "alarm", "cron": "0 13 * * 0,6"}
        self.assertEqual(self.j(l, [ev]), "exact")
        self.assertEqual(self.j(l, [dict(ev, cron="0 1 * * 0,6")]), "wrong")

    def test_a_move_s_last_when_is_the_new_time(self):
        l = line("change my 5pm alarm to 5:30 pm for today", "move", when="5pm")
        l["slots"].append({"slot": "when", "start": 20, "end": 40, "text": "to 5:30 pm for today"})
        self.assertEqual(judge.target_for(l, timeref), ("alarm", "2026-11-26T16:00:00Z"))
        mv = {"kind": "move", "id": "t", "text": "alarm", "due": "2026-11-26T16:30:00Z"}
        self.assertEqual(self.j(l, [mv], target="t"), "exact")

    def test_unknown_slots(self):
        l = line("please set a timer for 6 minutes", "add")
        l["slots_known"] = False
        self.assertEqual(self.j(l, [add("timer", "2026-11-26T13:36:00Z")]), "exact")
        c = line("Cancel the meeting on the 23rd", "cancel")
        c["slots_known"] = False
        self.assertEqual(self.j(c, []), "unjudged")
        self.assertEqual(self.j(c, [{"kind": "cancel", "id": "o", "text": "renew passport"}]), "wrong")

    def test_a_time_the_slots_missed_is_not_held_against_cn(self):
        l = line("Add conference call on Monday at 2:40 PM.", "add", what="conference call")
        verdict, due_checked, _, _ = judge.judge(l, [add("conference call", "2026-11-30T13:40:00Z")], "", None, timeref)
        self.assertEqual((verdict, due_checked), ("exact", "unchecked"))


class Target(unittest.TestCase):
    def test_names_and_dues(self):
        self.assertEqual(judge.target_for(line("cancel the hairdresser task", "cancel", item="the hairdresser task"), timeref), ("hairdresser", None))
        name, due = judge.target_for(line("move my 3pm call with Sam", "move", item="my 3pm call with Sam"), timeref)
        self.assertEqual(name, "call with Sam")
        self.assertEqual(due, "2026-11-26T14:00:00Z")

    def test_a_lone_alarm_is_seeded(self):
        # "Deactivate alarm": the hub's one alarm, tomorrow at 7; a lone reminder, or a
        # repeating alarm, stays unjudged.
        self.assertEqual(judge.target_for(line("Deactivate alarm", "cancel"), timeref), ("Alarm", "2026-11-27T06:00:00Z"))
        self.assertEqual(judge.target_for(line("Change my alarm to 8am instead please", "move", when="8am"), timeref), ("Alarm", "2026-11-27T06:00:00Z"))
        self.assertIsNone(judge.target_for(line("Delete the reminder", "cancel"), timeref))
        self.assertIsNone(judge.target_for(line("Cancel weekly alarm", "cancel"), timeref))

    def test_clock_forms_and_spans(self):
        now = judge.NOW_LOCAL
        self.assertEqual(timeref.reference("for 1645h", now).candidates, [dt.datetime(2026, 11, 26, 16, 45)])
        self.assertEqual(timeref.reference("for 4h00", now).candidates, [dt.datetime(2026, 11, 27, 4, 0)])
        self.assertEqual(timeref.reference("at 835h", now).candidates, [dt.datetime(2026, 11, 27, 8, 35)])
        self.assertIn(dt.datetime(2026, 11, 26, 15, 30), timeref.reference("at 3 30", now).candidates)
        self.assertEqual(timeref.normalise("for one and a half hours"), "90 minutes")

    def test_a_time_named_item_is_seeded_at_that_time(self):
        # "5 o clock" is a clock time; "at 7" after a day is the hour; today's task is still
        # ahead today; "tonight … instead of 7" names the old time.
        t = judge.target_for(line("delete my alarm for 5 o clock", "cancel", item="for 5 o clock"), timeref)
        self.assertEqual(t, ("alarm", "2026-11-27T04:00:00Z"))
        t = judge.target_for(line("delete alarm set for Friday evening at 7", "cancel", item="for Friday evening at 7"), timeref)
        self.assertEqual(t, ("alarm", "2026-11-27T18:00:00Z"))
        t = judge.target_for(line("get rid of today's alarms", "cancel", item="today"), timeref)
        self.assertEqual(t, ("alarm", "2026-11-26T16:00:00Z"))
        l = line("Change my alarm tonight to 8pm instead of 7.", "move", item="tonight", when="to 8pm")
        l["slots"].append({"slot": "item", "start": l["text"].find("of 7"), "end": l["text"].find("of 7") + 4})
        self.assertEqual(judge.target_for(l, timeref), ("alarm", "2026-11-26T18:00:00Z"))
        # A part of a day said: seeded in it.
        t = judge.target_for(line("Delete my party reminder for Saturday night", "cancel", item="party reminder for Saturday night"), timeref)
        self.assertEqual(t, ("party reminder", "2026-11-28T20:00:00Z"))
        # Time words apart ("the wednesday alarm for 10am"): read together, the name kept.
        t = judge.target_for(line("delete the wednesday alarm for 10am", "cancel", item="the wednesday alarm for 10am"), timeref)
        self.assertEqual(t, ("alarm", "2026-12-02T09:00:00Z"))
        # A name that ends in "of" and a word stays a name.
        t = judge.target_for(line("cancel the reminder of doctor", "cancel", item="reminder of doctor"), timeref)
        self.assertEqual(t, ("reminder of doctor", None))

    def test_a_span_of_days_the_slots_cut_short(self):
        l = line("set a reminder for homework at 10 pm from monday to wednesday", "add", what="homework", recur="monday", when="at 10 pm")
        ev = {"kind": "every", "id": "x", "text": "homework", "cron": "0 22 * * 1-3"}
        self.assertEqual(judge.judge(l, [ev], "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [dict(ev, cron="0 22 * * 1")], "", None, timeref)[0], "wrong")

    def test_a_nightly_alarm_repeats(self):
        l = line("set a nightly alarm at 9 pm", "add", what="nightly alarm", when="at 9 pm")
        ev = {"kind": "every", "id": "x", "text": "Alarm", "cron": "0 21 * * *"}
        self.assertEqual(judge.judge(l, [ev], "", None, timeref)[0], "exact")

    def test_an_alarm_for_the_next_days_repeats_and_ends(self):
        l = line("Make an alarm for the next 3 days at 10 am", "add", when="for the next 3 days at 10 am")
        ev = {"kind": "every", "id": "x", "text": "Alarm", "cron": "0 10 * * *", "until": "2026-11-29T23:00:00Z"}
        self.assertEqual(judge.judge(l, [ev], "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [dict(ev, until=None)], "", None, timeref)[0], "wrong")

    def test_alarms_listed_or_said_one_by_one_are_an_alarm_each(self):
        t = "Please set alarm for 6am, 6:12am, and 6:30am."
        l = {"text": t, "intent": "add", "source": "t", "slots": [
            {"slot": "when", "start": 17, "end": 24}, {"slot": "when", "start": 26, "end": 32}, {"slot": "when", "start": 38, "end": 44}]}
        three = [add("Alarm", "2026-11-27T05:00:00Z"), add("Alarm", "2026-11-27T05:12:00Z"), add("Alarm", "2026-11-27T05:30:00Z")]
        self.assertEqual(judge.judge(l, three, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, three[1:], "", None, timeref)[0], "wrong")
        t = "set two alarms one for 5 am, one for 5:30 am"
        l = {"text": t, "intent": "add", "source": "t", "slots": [
            {"slot": "when", "start": t.index("for 5 am"), "end": t.index("for 5 am") + 8},
            {"slot": "when", "start": t.index("for 5:30 am"), "end": len(t)}]}
        two = [add("Alarm", "2026-11-27T04:00:00Z"), add("Alarm", "2026-11-27T04:30:00Z")]
        self.assertEqual(judge.judge(l, two, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, two[:1], "", None, timeref)[0], "wrong")

    def test_two_clock_times_in_one_span_are_two_alarms(self):
        l = line("Create alarms tomorrow for 7:30 am and 8:10 am", "add", when="tomorrow for 7:30 am and 8:10 am")
        two = [add("Alarm", "2026-11-27T06:30:00Z"), add("Alarm", "2026-11-27T07:10:00Z")]
        self.assertEqual(judge.judge(l, two, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, two[:1], "", None, timeref)[0], "wrong")

    def test_a_day_said_once_is_each_time_s(self):
        # "at 10am and 2pm on Monday": the day said after the last time is the first's too.
        l = line("Create alarms to go off at 10am and 2pm on Monday", "add", when="at 10am and 2pm on Monday")
        two = [add("Alarm", "2026-11-30T09:00:00Z"), add("Alarm", "2026-11-30T13:00:00Z")]
        self.assertEqual(judge.judge(l, two, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [add("Alarm", "2026-11-27T09:00:00Z"), two[1]], "", None, timeref)[0], "wrong")
        # "for wednesday at noon and five thirty pm": the day said first is the second's too.
        l = line("have an alarm set for wednesday at noon and five thirty pm", "add", when="for wednesday at noon and five thirty pm")
        two = [add("Alarm", "2026-12-02T11:00:00Z"), add("Alarm", "2026-12-02T16:30:00Z")]
        self.assertEqual(judge.judge(l, two, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [two[0], add("Alarm", "2026-11-26T16:30:00Z")], "", None, timeref)[0], "wrong")

    def test_a_reminder_of_nothing_is_asked_what(self):
        # "Remind me in 2 hours, please": nothing to remind of — one question back is its effect;
        # an alarm with its time said and asked about was missed.
        l = line("Remind me in 2 hours, please.", "add", when="in 2 hours")
        self.assertEqual(judge.judge(l, [], "What should I remind you of at Thu 26 Nov, 16:30?", None, timeref)[0], "exact")
        a = line("Set an alarm for 1800", "add", when="for 1800")
        self.assertEqual(judge.judge(a, [], "When should the alarm go off?", None, timeref)[0], "asked")

    def test_a_span_said_alone_is_from_now(self):
        # "5-minute timer", "a 40 second squats timer": from now, never a date.
        for text, when, due in [("5-minute timer", "5-minute", "2026-11-26T13:35:00Z"), ("Make a 40 second squats timer", "40 second", "2026-11-26T13:30:00Z")]:
            l = line(text, "add", when=when)
            self.assertEqual(timeref.reference(when, judge.NOW_LOCAL).granularity, "minute", text)
            self.assertEqual(judge.judge(l, [add("Timer", due)], "", None, timeref)[0], "exact", text)

    def test_an_alarm_repeated_at_two_times_is_an_entry_for_each(self):
        l = line("Please set an alarm for 8pm and 10pm each night", "add", recur="each night", when="for 8pm and 10pm")
        two = [{"kind": "every", "id": "a", "text": "Alarm", "cron": "0 20 * * *"},
               {"kind": "every", "id": "b", "text": "Alarm", "cron": "0 22 * * *"}]
        self.assertEqual(judge.judge(l, two, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [two[0], dict(two[1], cron="0 21 * * *")], "", None, timeref)[0], "wrong")
        self.assertEqual(judge.judge(l, two[:1], "", None, timeref)[0], "wrong")

    def test_an_alarm_named_without_the_word_alarm(self):
        l = line("set wake up alarm for 6am", "add", what="wake up alarm", when="for 6am")
        self.assertEqual(judge.judge(l, [add("Wake up", "2026-11-27T05:00:00Z")], "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [add("Alarm", "2026-11-27T05:00:00Z")], "", None, timeref)[0], "wrong")

    def test_an_hourly_window(self):
        l = line("Set hourly alarm from 7am to 10pm to remind me to drink water", "add", what="drink water",
                 recur="hourly", when="from 7am to 10pm")
        ev = {"kind": "every", "id": "x", "text": "drink water", "cron": "0 7-22 * * *"}
        self.assertEqual(judge.judge(l, [ev], "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [dict(ev, cron="0 7-21 * * *")], "", None, timeref)[0], "wrong")
        self.assertEqual(judge.judge(l, [dict(ev, cron="0 * * * *")], "", None, timeref)[0], "wrong")

    def test_no_time_said_to_a_device_is_asked(self):
        # A source without slots: the text says no time, so the question back is the effect.
        l = line("start a timer please", "add")
        l["slots_known"] = False
        self.assertEqual(judge.judge(l, [], "When should the timer go off?", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [], "I can't do that myself: it needs an executive model", None, timeref)[0], "handed_up")
        t = line("set a 4 minute timer", "add")
        t["slots_known"] = False
        self.assertEqual(judge.judge(t, [], "When should the timer go off?", None, timeref)[0], "asked")
        # A repeating alarm with a day and no time of day.
        r = line("alarm that goes off every sunday", "add", recur="every sunday")
        self.assertEqual(judge.judge(r, [], "at what time?", None, timeref)[0], "exact")
        r6 = line("alarm every sunday at 6", "add", recur="every sunday at 6")
        self.assertEqual(judge.judge(r6, [], "at what time?", None, timeref)[0], "asked")

    def test_a_move_by_a_shift_is_from_the_item_s_time(self):
        l = line("move my dinner reminder on sunday back an hour", "move", item="my dinner reminder on sunday", when="back an hour")
        mv = {"kind": "move", "id": "t", "text": "dinner", "due": "2026-11-29T09:00:00Z"}  # 10:00 Paris
        self.assertEqual(judge.judge(l, [mv], "", "t", timeref, target_due="2026-11-29T08:00:00Z")[0], "exact")
        self.assertEqual(judge.judge(l, [dict(mv, due="2026-11-29T07:00:00Z")], "", "t", timeref, target_due="2026-11-29T08:00:00Z")[0], "wrong")
        e = line("move the call 30 minutes earlier", "move", item="the call", when="30 minutes earlier")
        ok = {"kind": "move", "id": "t", "text": "call", "due": "2026-11-29T07:30:00Z"}
        self.assertEqual(judge.judge(e, [ok], "", "t", timeref, target_due="2026-11-29T08:00:00Z")[0], "exact")

    def test_a_source_that_marks_no_time_does_not_check_the_due(self):
        l = line("schedule a nap for the weekend", "add", what="nap")
        l["source"] = "smcalflow"
        self.assertEqual(judge.judge(l, [add("nap", "2026-11-28T08:00:00Z")], "", None, timeref)[0], "exact")
        l["source"] = "topv2"
        self.assertEqual(judge.judge(l, [add("nap", "2026-11-28T08:00:00Z")], "", None, timeref)[0], "wrong")

    def test_all_of_a_days_cancelled(self):
        l = line("cancel all reminders i have set up for tomorrow", "cancel", item="all reminders i have set up for tomorrow")
        both = [{"kind": "cancel", "id": "t", "text": "reminder", "due": "2026-11-27T08:00:00Z"},
                {"kind": "cancel", "id": "o", "text": "water the plants", "due": "2026-11-27T16:00:00Z"}]
        self.assertEqual(judge.judge(l, both, "", "t", timeref, target_due="2026-11-27T08:00:00Z")[0], "exact")
        other_day = [both[0], dict(both[1], due="2026-11-28T16:00:00Z")]
        self.assertEqual(judge.judge(l, other_day, "", "t", timeref, target_due="2026-11-27T08:00:00Z")[0], "wrong")
        l = line("cancel the reminders for tomorrow", "cancel", item="the reminders for tomorrow")
        self.assertEqual(judge.judge(l, both, "", "t", timeref, target_due="2026-11-27T08:00:00Z")[0], "wrong")

    def test_alarms_at_two_times_in_a_source_without_slots(self):
        l = line("i want you to set alarms for 2pm and 3pm", "add")
        l["slots_known"] = False
        # Paris is UTC+1: 2pm has passed at the judge's now (14:40), so tomorrow; 3pm today.
        two = [add("Alarm", "2026-11-27T13:00:00Z"), add("Alarm", "2026-11-26T14:00:00Z")]
        self.assertEqual(judge.judge(l, two, "", None, timeref)[0], "exact")
        self.assertEqual(judge.judge(l, [two[0], add("Alarm", "2026-11-26T16:00:00Z")], "", None, timeref)[0], "wrong")
        self.assertEqual(judge.judge(l, two[:1], "", None, timeref)[0], "wrong")

    def test_an_end_said_after_a_list_of_days(self):
        self.assertTrue(judge.end_said("a new alarm for 3pm every Thursday and Friday for 3 weeks"))
        self.assertFalse(judge.end_said("an alarm every Monday through Friday at 7"))


class Diff(unittest.TestCase):
    def test_changes(self):
        b = {"tasks": [{"id": "a", "task": "x", "due": "2026-11-27T09:00:00Z"}, {"id": "b", "task": "y"}], "ideas": [], "schedule": [{"name": "r", "cron": "0 9 * * *", "action": "reflect"}]}
        a = {
            "tasks": [{"id": "a", "task": "x", "due": "2026-11-28T09:00:00Z", "follow_up": "z"}, {"id": "b", "task": "y", "status": "cancelled", "done": True}, {"id": "c", "task": "new"}],
            "ideas": [{"id": "i", "idea": "cello"}],
            "schedule": [{"name": "r", "cron": "0 9 * * *", "action": "reflect"}],
        }
        kinds = sorted(c["kind"] for c in judge.changes(b, a))
        self.assertEqual(kinds, ["add", "cancel", "idea", "move"])


if __name__ == "__main__":
    unittest.main()
