"""What staff write in an email thread: the phrase pools of the ``email_thread`` genre.

Greetings and sign-offs, openers and requests by the counterpart's role, acknowledgements, progress
notes, questions and answers, closers, the leads and tails around a paragraph that holds a slot (a rule,
a peer's figure, how often customers asked), history framing of a replaced rule, forward notes, phone
replies, and the signature and header bits (phone labels, area codes, mailers).

No digits and no number words: generic lines must never look like a policy value. Placeholders: {T}
topic (lower case), {A} asset, {S} subject, {first} recipient's first name, {other} counterpart
organisation, {business} the business, {cc_first} a copied colleague, {day} a weekday, {site} where the
business serves customers in person (the domain's word, CommonWords).
"""

from __future__ import annotations

SIGNOFFS = ("Best,", "Thanks,", "Thank you,", "Regards,", "Kind regards,", "Best regards,", "Many thanks,",
             "Thanks again,", "Cheers,", "All the best,", "Appreciate it,")
GREETINGS = ("Hi {first},", "Hello {first},", "{first},", "Hi {first} -", "Dear {first},", "Good {daypart} {first},",
              "Hi {first}, hope your week is going well.")
GREETINGS_GROUP = ("Hi all,", "Hello everyone,", "Hi {first} and team,", "All,")

OPENERS = {
    ("business", "vendor"): (
        ("We're refreshing {A} ahead of your next release and I'd like the {T} content to be right before it "
        "goes out."),
        "Our policy committee signed off on the {T} items this week, so I'm passing the details along for {A}.",
        "A few of our {site} staff flagged that {A} doesn't line up with what we tell customers about the {S}.",
        ("I'm pulling together the {T} updates for {A} and wanted to check them with you before your team "
        "starts building."),
        "Following up on our call about {A}: here is where we landed on the {S}.",
    ),
    ("business", "partner"): (
        "Ahead of {A}, I want to make sure you have our current position on the {S}.",
        "As promised, here is our write-up on {T} for {A}.",
        "Before your team finalises {A}, could you look over how we describe the {S} to customers?",
        "We're tidying up the {T} section and would value your read on it before {A}.",
    ),
    ("vendor", "business"): (
        "We're preparing the next configuration drop for {A} and need your confirmation on the {S}.",
        "Our implementation team is reviewing {A} and noticed we don't have a current statement on the {S}.",
        "Quick check before we publish changes to {A}: we want to be sure the {S} matches your terms.",
        "As part of the {T} work for {business}, we're validating {A} against your schedule.",
    ),
    ("partner", "business"): (
        "As part of {A}, we're walking through your {T} section and have a couple of questions.",
        "We're finalising our notes on {A} and want to confirm the {S} against what your staff tell customers.",
        "Our reviewers picked up the {S} while testing {A}, and we'd like to close it out with you.",
        "Picking up where we left off on {A}: the {T} material is next on our list.",
    ),
}
OPENER_CONTEXT = {
    "business": (
        "Nothing else in the {T} section is changing.",
        "I've copied {cc_first}, who owns the customer-facing wording.",
        "The {site} teams have already been briefed.",
        "We'd like {A} to match our published terms word for word.",
        "Our legal team has already reviewed the wording.",
        "This came up at our last steering meeting as well.",
    ),
    "other": (
        "Happy to jump on a call if that's easier.",
        "I've copied {cc_first}, who is running the change on our side.",
        "We'd like to close this out before our next milestone.",
        "This is among the last open items on our list.",
        "No rush today, but we'd like to settle it this month.",
    ),
}
REQUESTS = {
    "business": (
        "I'll follow up with the details once I've checked them.",
        "Could you tell me what {A} currently shows for the {S}?",
        "Can you send me a copy of what's live today?",
    ),
    "other": (
        "Could you send over what you have on the {S}?",
        "Can you tell us where things stand on the {S}?",
        "Please share the details when you have them.",
        "Could you point us to the latest on this?",
    ),
}
FILLER_SCENARIOS = (  # (subject, opener, reply, closer)
    ("{Title}: review meeting",
     "Could we find time on {day} to walk through {A}? I'd like to cover the {T} section in particular.",
     "{day} afternoon works for us. I'll send an invite with a dial-in.",
     "Great, I'll look out for the invite."),
    ("Copy of {A} ({Title})",
     ("Our audit team has asked for the latest version of {A}, in particular the {T} section. Could you send "
     "over the copy your team is working from?"),
     "I'll dig out the current copy and send it over separately, since it's too large for email.",
     "Perfect, thanks. I'll keep an eye out for it."),
    ("Contacts for {T} escalations",
     ("We're updating our escalation contacts for {T}. Please let me know who should be on the list from your "
     "side."),
     "Please keep me on the list, along with our shared team inbox for anything urgent.",
     "Thanks, that's helpful. I'll update our records."),
    ("Introduction: {Title}",
     ("I'm taking over the {T} relationship from a colleague who has moved teams, so I wanted to introduce "
     "myself and check where things stand on {A}."),
     "Nice to meet you. Nothing is outstanding on {A} as far as I can see, but I'll double-check with the team.",
     "Appreciate it. Talk soon."),
    ("Open items: {Title}",
     "Before our quarterly review, could you share any open {T} items you're tracking on {A}?",
     "Let me pull together the open items and come back to you before the review.",
     "Sounds good, thanks."),
    ("{Title}: routing questions",
     ("We'd like to tidy up how {T} questions are routed between our teams. Do you have a current process "
     "map we could look at?"),
     "We have a draft process map; I'll tidy it up and share it ahead of our next call.",
     "That would help a lot. Thanks."),
)
FILLER_MIDDLE = (
    "Quick follow-up: is this still on your list?",
    "Adding {cc_first} so they're in the loop.",
    "Just checking whether you need anything else from me first.",
    "Yes, still on track. Thanks for the nudge.",
    "Thanks, noted on our side as well.",
)
ACKS = (
    "Thanks, {first}.", "Thanks for sending this over.", "Appreciate the quick turnaround.", "Got it, thank you.",
    "Thanks for the detail, that helps.", "Thanks, this is clear.", ("Sorry for the slow reply; it's been a busy "
    "week."), "Thanks for flagging.", "Thanks for pulling this together.", "Helpful, thank you.",
)
SLOW_ACK = "Sorry for the slow reply; it's been a busy week."
QUICK_ACK = "Appreciate the quick turnaround."
SLOW_REPLY = 2 * 24 * 3600
"""Seconds after the message it answers from which a reply may apologise for being slow (two days)."""
QUICK_REPLY = 4 * 3600
"""Seconds after the message it answers within which a reply may thank for a quick turnaround (four hours)."""


def acks_after(waited_seconds: float | None) -> tuple[str, ...]:
    """The :data:`ACKS` a reply sent ``waited_seconds`` after the message it answers may open with: the
    apology for a slow reply only after :data:`SLOW_REPLY`, the thanks for a quick turnaround only within
    :data:`QUICK_REPLY` (an apology seven minutes after the question read as a non-sequitur); ``None``
    (the first message) keeps neither."""
    return tuple(ack for ack in ACKS
                 if (ack != SLOW_ACK or (waited_seconds is not None and waited_seconds >= SLOW_REPLY))
                 and (ack != QUICK_ACK or (waited_seconds is not None and waited_seconds <= QUICK_REPLY)))


ASKS = (
    "Could you confirm once {A} reflects this?",
    "Can your team let me know if anything here conflicts with what you have on file?",
    "Please reply with any questions by end of week.",
    "Let me know if you need this in a different format.",
    "If you see any gaps, flag them and we'll sort them out.",
    "Could you let us know when this is live on your side?",
    "Please check this against your records and shout if anything looks off.",
)
PROGRESS = {
    "vendor": (
        "We've loaded the change in our test environment and will move it to production once you sign off.",
        "I've passed this to our configuration team and they'll update {A} in the next release window.",
        "The update is queued with the next content refresh; I'll confirm when it's live.",
        "Our QA team will run the usual regression checks before anything goes out.",
    ),
    "partner": (
        "Our reviewers have noted it in the working papers.",
        "I'll update the draft and send a clean copy for your records.",
        "That resolves the open point on our list for {A}.",
        "We'll reflect this in the final report and reference your confirmation.",
    ),
    "business": (
        "I've updated our procedures page to match.",
        "Our contact centre leads will get a note about it at tomorrow's huddle.",
        "I'll let the {site} managers know it's settled.",
        "I've asked {cc_first} to make sure the scripts say the same thing.",
    ),
}
QA = {  # asked by → (question, answer from the other side); the business's questions depend on the counterpart
    "other": (
        ("Should the customer-facing wording mention when the change took effect?",
         "Yes, please include it; customers tend to ask."),
        ("Who on your side should approve the final wording?",
         "Please send it to me, and I'll get sign-off from our compliance team."),
        ("Should we keep the old wording anywhere for reference?",
         "Only in your change log. Nothing customer-facing should show it."),
        ("Do you want the help pages updated at the same time?",
         "Yes, at the same time if you can. It keeps everything consistent."),
    ),
    "business:vendor": (
        ("Is there anything you need from us before this goes out?",
         "Nothing further for now. We'll reach out if testing turns anything up."),
        ("Could you send a screenshot once it's updated?",
         "Will do, as soon as the change is in our test environment."),
        ("Can you confirm who on your team will sign this off?",
         "That will be me, with our quality lead copied."),
    ),
    "business:partner": (
        ("Do you need anything else from us for the review?",
         "Not at this stage. We'll let you know if anything comes up."),
        ("Will this show up as a finding, or is it just a note?",
         "Just a note. It's resolved as far as we're concerned."),
        ("Can you confirm who on your team will sign this off?",
         "That will be me, with our engagement partner copied."),
    ),
}
CLOSERS = (
    "Perfect, that's everything we needed. Thanks, {first}.",
    "Great, I'll close this out on our side.",
    "Confirmed, this is live now.",
    "Thanks all. Marking this as complete.",
    "That works. Appreciate your help on this.",
    "Thanks, we're all set.",
)
# Leads and tails of a paragraph holding a thread's slot, whatever it holds (a rule, a peer's figure, how
# often customers asked, a working note). {S} is the slot's own subject.
LEADS_OWN = (
    "On the {S}:",
    "To confirm where we are on the {S}:",
    "For {A}, here's what we have on the {S}.",
    "Some background for {A}:",
    "Here's what I found on the {S}.",
    "For reference:",
    "A quick note on the {S}.",
    "This came out of our review this week:",
)
LEADS_RESTATED = (
    "Confirming what we have:",
    "Per your last note, we've recorded the following:",
    "For our notes on the {S}:",
    "This is what we now have on file:",
    "Just so we're aligned on the {S}:",
)
LEADS_LIST = {
    "business": ("A few points on {T}:", "Here's where things stand on {T}:", "Notes for {A}:"),
    "other": ("Here is what we have on file:", "Our notes now read as follows:", "For our records:"),
}
TAILS = ("Let me know if that doesn't match your records.", "Shout if anything looks off.",
          "Happy to talk it through.", "Worth keeping in mind for {A}.", "Nothing else changes.")
# Grounded content of a slot that holds no rule (see benchmarks.grounded_sentences). {P} peer, {V} figure.
PEER_LINES = ("For comparison, {P} publishes {V} for {S}.", "Customers keep quoting {P}'s {V} for {S}.",
               "{P}'s published terms give {V} for {S}.", "A customer compared us with {P}, which lists {V} for {S}.")
VOLUME_LINES = ("We had {N} customer questions about {S} in {MONTH}.", "{S} came up in {N} calls in {MONTH}.",
                 "Our contact centre logged {N} questions about {S} in {MONTH}.",
                 "{N} customers asked us about {S} in {MONTH}.")
NOTE_LINES = ("Customers keep asking about {S}, and the explanation on calls varies.",
               "Most questions about {S} come in by phone rather than in writing.",
               "Customers sometimes mix up {S} with something else, so staff check what they mean first.")
FORWARD_NOTES = (
    "Forwarding the note below from {colleague}. Please update {A} accordingly.",
    "See below from {colleague}. Can your team pick this up for {A}?",
    "Passing this along from {colleague} on our side. Let us know if you have questions.",
    "Forwarding for your action, {first}. {colleague} has the background if you need it.",
)
INTERNAL_ASKS = (
    "Can you make sure {other} has this before they update {A}?",
    "Could you pass this on to your contact at {other}?",
    "Please share this with {other} when you get a chance.",
)
MOBILE_REPLIES = ("Thanks, will do.", "Got it, thanks.", "Perfect, thank you.", "Thanks, looks good to me.",
                   "Received, thanks.", "Sounds good.")
HISTORY_PAST = (
    "For reference, this is how it read until the new schedule took effect on {date}:",
    "Before {date}, our terms said:",
    "Until the change on {date}, the rule was:",
    "The version in force up to {date} was:",
    "In case anyone still has the old copy, up to {date} it read:",
    "Our previous wording, retired on {date}, was:",
)
HISTORY_TAILS_PAST = ("That wording is out of date, so please don't reuse it.", "That no longer applies.",
                       "Please treat that as history.", "Any copies of that should be retired.",
                       "It should not appear anywhere customer-facing now.", "")
PHONE_LABELS = ("Direct:", "T:", "Office:", "Tel", "Phone:")
AREA_CODES = ("312", "314", "319", "402", "515", "563", "608", "612", "630", "651", "815", "847")
MAILERS = {"outlook": "Microsoft Outlook 16.0", "apple": "iPhone Mail (21D61)"}
