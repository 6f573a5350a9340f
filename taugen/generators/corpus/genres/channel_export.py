"""The channel-export genre: one Slack-style channel exported as JSON (``.json``).

The file has the shape of a Slack workspace export of one channel, folded into one document
(Slack's export format: https://slack.com/help/articles/220556107 ; message objects:
https://api.slack.com/events/message ; threads: https://api.slack.com/messaging/retrieving#finding_threads):

* ``channel``: ``id`` (``C…``), ``name`` (lower case, hyphens), ``created`` (epoch seconds),
  ``creator``, ``is_ext_shared`` (a Slack Connect channel shared with a vendor or partner),
  ``members`` (user ids), ``topic`` and ``purpose`` (``value``, ``creator``, ``last_set``);
* ``members``: users (``id`` ``U…``, ``team_id``, ``name``, ``real_name``, ``profile`` with
  ``title`` and ``display_name``);
* ``messages``: every message of the channel in ``ts`` order. ``ts`` is the epoch time as a string
  with six decimals and is unique; thread parents carry ``thread_ts`` (their own ``ts``),
  ``reply_count``, ``reply_users``, ``reply_users_count``, ``latest_reply`` and ``replies``
  (``user`` and ``ts`` of each reply); replies carry ``thread_ts`` (the parent's ``ts``) and
  ``parent_user_id``; ``reactions`` list ``name``, ``users`` and ``count``; joins are
  ``subtype: channel_join`` messages. Text uses Slack's escaping: ``&``, ``<`` and ``>`` become
  ``&amp;``, ``&lt;`` and ``&gt;``, and mentions are ``<@U…>``.

The export holds three to seven conversations (questions answered in a thread, announcements,
day-to-day chatter) posted in working hours inside the window and never before the rules stated took
effect. Carriers and fillers come from one process: every export draws how many conversations about one
subject it has (a filler at least as many as a carrier of the genre has rules: ``plan.rule_slots``); a rule the plan owns takes one (answered in a thread or announced, verbatim after
unescaping; voiced ones as people type in chat), a rule named in passing (a mention the planner adds)
takes one the same way, and grounded sentences about other subjects of the topic take the rest (see
:func:`~taugen.generators.corpus.genres.benchmarks.grounded_slots`: how often customers asked, a
working note); a question often says how the subject came up with customers, and now and then
someone adds what other organisations publish for the subject
(:func:`~taugen.generators.corpus.genres.benchmarks.comparison`), beside a rule or not alike. Questions,
leads and replies come from one pool for every slot. A superseded rendition is framed as history only
when :func:`~taugen.generators.corpus.genre.shown_as_history` holds on its message's date; otherwise it
is the rule in force that day and is posted like any other. Pointers, caveats, route pointers and
decoys are posted in passing in a chatter thread, verbatim. ``timestamps`` are the message times in
``ts`` order (the file order).
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import json
import random
import re
import string

from taugen.generators.corpus.genre import (
    CUE_STATUSES,
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    register_genre,
)
from taugen.generators.corpus.genres.benchmarks import (
    GroundedSlot,
    comparison,
    grounded_sentences,
    grounded_slots,
    plan_peers,
)
from taugen.generators.corpus.genres.workplace import (
    Colleague,
    cast,
    counterpart,
    in_force_from,
    lower_first,
    plan_frame,
    said_subject,
    subject_phrase,
    upper_first,
    window,
    working_spread,
    workplace_words,
    written_history,
    zone,
)
from taugen.generators.corpus.prose import has_doubled_words
from taugen.findings import Finding, error
from taugen.generators.corpus.stamps import Chain, epoch_stamp, json_documents

SUFFIX = ".json"
_TS = re.compile(r"^\d{9,10}\.\d{6}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")
_MENTION = re.compile(r"<@(U[A-Z0-9]+)>")

# Chat lines of a conversation about one subject, whatever its slot holds (a rule, a rule named in
# passing, a peer's figure, how often customers asked, a working note). {S} subject.
_QUESTIONS = ("Quick q: anything I should know about {S} these days?",
              "Does anyone have anything on {S}? Got a customer asking.",
              "Sanity check on {S} before I reply to a complaint, what do we have?",
              "Can someone catch me up on {S}? Want to get it right on the call back.",
              "Anyone looked at {S} lately? The macro looks off to me.")
_ANSWER_LEADS = ("For reference:", "From what I have:", "Noting it here:", "From the team notes:", "So:", "", "")
_VOICED_LEADS = ("", "", "yep,", "so basically:", "from what I have:", "ok so", "fyi:", "btw,", "also,")
"""Leads of a chat line said in passing: a voiced slot or a remark."""
# Grounded content of a slot that holds no rule (see benchmarks.grounded_sentences). {P} peer, {V} figure.
_PEER_LINES = ("customers keep quoting {P}'s {V} for {S}.", "for comparison, {P} publishes {V} for {S}.",
               "had a customer compare us with {P}, which lists {V} for {S}.", "{P}'s terms give {V} for {S}.")
_VOLUME_LINES = ("{N} customers asked about {S} in {MONTH}.", "{S} came up in {N} calls and chats in {MONTH}.",
                 "complaints logged {N} cases mentioning {S} in {MONTH}.")
_NOTE_LINES = ("customers mostly ask about {S} after a statement arrives.",
               "people keep explaining {S} differently on calls.",
               "customers sometimes mix up {S} with something else, worth checking what they mean.")
_ANNOUNCE = ("Heads up, team. {text}", "FYI for anyone on the queue today: {text}", "Posting this so it's pinned "
             "somewhere: {text}", "Reminder, since it came up again: {text}")
_THANKS = ("thanks!", "perfect, thank you", "great, updating the macro now", "got it, thanks", "ty, that's what I "
           "needed", "thanks, will use that wording")
_FOLLOW = ("Can we get that into the knowledge base too?", "I'll update the chat macro to match.",
           "Adding this to the team notes.", "Good to have it written down.")
_FOLLOW_REPLIES = ("Already on it.", "Yes, I'll raise it with the content team.", "Thanks for doing that.")
_CHATTER = (  # (opening line, replies that fit it)
    ("Who's covering the queue this afternoon?", ("I can take it.", "I'm on until close.", "Me, after lunch.")),
    ("The {T} FAQ draft is up in the shared folder for comments.",
     ("Thanks, will read it today.", "Left a couple of comments.", "Looks good to me.")),
    ("Reminder: huddle moved to the small meeting room.", ("Thanks for the heads up.", "Noted.")),
    ("Anyone else seeing the call guide load slowly?", ("Same here, I'll log a ticket.", "Yes, it's slow for me too.",
                                                       "Seems fine now.")),
    ("Coffee run in a bit if anyone wants anything.", ("Yes please, the usual.", "I'm good, thanks!")),
    ("Has anyone heard back from the content team about the {T} page?", ("Not yet, I'll chase.",
                                                                          "They said it's in their queue.")),
    ("Please add your notes to the handover doc before you log off.", ("Done.", "Will do.", "Added mine.")),
    ("The training session on {T} is being recorded for anyone who can't make it.", ("Thanks, I'll watch it later.",
                                                                                      "Great, thanks.")),
)
_PURPOSES = ("Day-to-day questions about {T} for the operations teams.", "Working channel for {T} changes and "
             "customer questions.", "Shared channel between {business} and {other} for {T} work.",
             "Shared channel between {business} and {other} about {T}.")
"""A channel's purpose (``{T}`` the topic): the first two for internal channels, the others for shared ones."""
_REACTIONS = ("+1", "white_check_mark", "pray", "eyes", "raised_hands", "thumbsup", "100")


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _ident(rng: random.Random, prefix: str) -> str:
    return prefix + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(10))


def _slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")


@register_genre
class ChannelExportGenre(Genre):
    """A Slack-style channel export (JSON); see the module docstring.

    ``metadata``: ``channel`` (name), ``variant``, ``members`` (user id → name), ``posts`` (ts of each
    message stating a fact, by fact id) and ``timestamp_order`` = ``"ts"``.
    """

    name = "channel_export"
    reference_kinds = MappingProxyType({"": "workspace_export"})
    label = "Chat channel export (Slack JSON)"
    max_facts = 3
    variants = ("internal", "shared")
    affinity = (("money", "internal", 1), ("duration", "internal", 1), ("boolean", "internal", 1),
                ("text", "internal", 2), ("enum", "shared", 1), ("count", "internal", 1), ("cap", "shared", 1),
                ("none", "internal", 1))
    voiced = True
    grounded_fillers = True
    """Conversations whose slot holds no rule hold grounded sentences (peers' figures, customers' questions)."""
    spoken_mentions = True
    """Colleagues typing in a channel name a rule in passing as they say it ("the UTMA account age"), as
    they name the rules they state; in the expert's words only, a channel's mentions would leave the
    pack's spoken wordings about twice as common in carriers as in fillers (2.1x at banking hard seed 0)."""

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """A channel export runs from two hours to five days and some, first message to last: with the
        default (0 to 3 days) one export in four had no time at all, and every join, question and reply
        in it was posted in the same minute."""
        return dt.timedelta(days=rng.randint(0, 5), hours=rng.randint(2, 9), minutes=rng.randint(0, 59))

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the channel's messages and export them.

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        if len(plan.renditions) > self.max_facts:
            raise ValueError(f"{plan.artifact_id}: channel_export holds at most {self.max_facts} facts")
        rng = plan.rng("channel")
        fake = plan.faker(context.config.locale, "channel-people")
        tz = zone(context)
        business = context.config.business
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        other = counterpart(rng, context) if variant == "shared" else None
        roles = [(business, "business")] * rng.randint(3, 4) + \
            ([(other, other.role)] * rng.randint(1, 2) if other else [])
        people = cast(rng, fake, roles, workplace_words(context))
        ids = {p.handle: _ident(rng, "U") for p in people}
        teams = {org_id: _ident(rng, "T") for org_id in sorted({p.org.id for p in people})}
        topic = subject_phrase(plan)
        if other is not None:
            channel_name = (f"ext-{_slug(other.name.split()[0])}-{_slug(business.name.split()[0])}-"
                            f"{_slug(plan.topic_title)}")
        else:
            channel_name = f"{rng.choice(('ops', 'team', 'help'))}-{_slug(plan.topic_title)}"
        channel_name = channel_name[:80].strip("-")
        values = {"T": topic, "business": business.name, "other": other.name if other else business.name}

        # The conversation in posting order: speaker, text (or the rendition stated), parent post.
        posts: list[dict] = []

        def post(speaker: Colleague, text: str, parent: int | None = None, rendition: Rendition | None = None,
                 shape: str = "") -> int:
            posts.append({"speaker": speaker, "text": text, "parent": parent, "rendition": rendition, "shape": shape})
            return len(posts) - 1

        business_people = [p for p in people if p.org.id == business.id]
        chatter = list(_CHATTER)
        rng.shuffle(chatter)
        # Conversations about one subject each: a rule the plan owns, a rule named in passing (a mention),
        # or a grounded sentence about another subject of the topic. Every export draws how many subject
        # conversations it has alike; rules take theirs, grounded sentences the rest (now and then one more).
        slotted = sorted((r for r in plan.renditions if r.status not in CUE_STATUSES or r.status == "mention"),
                         key=lambda r: (r.date, r.fact_id))
        remarks = [r for r in plan.renditions if r.status in CUE_STATUSES and r.status != "mention"]  # in passing
        subjects = max(rng.choice((1, 1, 2, 2, 3)), plan.rule_slots)  # a filler: as many as a carrier's rules
        order: list[object] = list(slotted) + grounded_slots(
            rng, context, plan, max(subjects - len(slotted), 0) + int(rng.random() < 0.25),
            plan.start.date(), peer_lines=_PEER_LINES,
            volume_lines=_VOLUME_LINES, note_lines=_NOTE_LINES)
        wanted = rng.randint(3, 7)  # conversations in the export, with or without rules
        order += chatter[:max(wanted - len(order), 1 if order else 3)]
        rng.shuffle(order)
        chatter_threads = [index for index, item in enumerate(order) if isinstance(item, tuple)]
        peers = plan_peers(context, plan)
        remark_in = {id(remark): rng.choice(chatter_threads) for remark in remarks}
        saying = plan.rng("spoken subjects")  # how a colleague asking about a subject says it (any subject alike)
        for position, item in enumerate(order):
            if isinstance(item, tuple):
                line, fitting = item
                asker = rng.choice(people)
                parent = post(asker, line.format(**values))
                for reply in rng.sample(fitting, k=rng.randint(0, len(fitting))):
                    post(rng.choice([p for p in people if p is not asker]), reply, parent)
                for remark in remarks:
                    if remark_in[id(remark)] == position:
                        lead = rng.choice(_VOICED_LEADS)
                        post(rng.choice([p for p in people if p is not asker]),
                             f"{lead} {lower_first(remark.text) if lead.endswith(',') else remark.text}" if lead
                             else remark.text, parent if rng.random() < 0.5 else None)
                continue
            assert isinstance(item, (Rendition, GroundedSlot))
            answerer = rng.choice(business_people)
            subject = item.subject if isinstance(item, GroundedSlot) else subject_phrase(plan, item)
            fact = item.fact if isinstance(item, GroundedSlot) else plan.facts.get(item.fact_id)
            # now and then someone adds what other organisations publish for the subject (rule or not alike)
            aside = comparison(rng, context, fact, subject, peers, plan.facts.values(), 0.35, peer_lines=_PEER_LINES)
            if rng.random() < 0.65:
                asker = rng.choice([p for p in people if p is not answerer])
                question = rng.choice(_QUESTIONS).format(S=said_subject(context, saying, subject))
                if fact is not None and rng.random() < 0.5:  # how it came up (a rule's subject or not alike)
                    question += " " + " ".join(line[:1].upper() + line[1:] for line in grounded_sentences(
                        rng, context, fact, subject, peers, plan.start.date(), plan.facts.values(),
                        peer_lines=_PEER_LINES, volume_lines=_VOLUME_LINES, note_lines=_NOTE_LINES,
                        written="this"))
                parent = post(asker, question)
                post(answerer, "", parent, item, "answer")
                if aside:
                    post(rng.choice([p for p in people if p is not answerer]), aside, parent)
                post(asker, rng.choice(_THANKS), parent)
            else:
                parent = post(answerer, "", None, item, "announce")
                if aside:
                    post(rng.choice([p for p in people if p is not answerer]), aside, parent)
                if rng.random() < 0.6:
                    follower = rng.choice([p for p in people if p is not answerer])
                    post(follower, rng.choice(_FOLLOW), parent)
                    post(answerer, rng.choice(_FOLLOW_REPLIES), parent)

        # Times: joins first, then the posts in order (replies after their parents).
        start, end = window(plan, tz)
        joins = [p for p in people if rng.random() < 0.4][:2]
        first = in_force_from(plan, start, end)
        # a message's ts adds up to a second of microseconds to its time: every time stays a second short of
        # the end, so no message is stamped after the export (or the world's now, when the export ends then)
        times = working_spread(rng, len(joins) + len(posts), first, max(first, end - dt.timedelta(seconds=1)),
                               min_gap=45, max_gap=3 * 3600)
        for item, moment in zip(posts, times[len(joins):]):
            rendition = item["rendition"]
            if rendition is None:
                continue
            lead, tail = ("", "") if isinstance(rendition, GroundedSlot) else \
                written_history(rng, plan, rendition, moment.date())  # only when history that day
            if lead:
                item["text"] = " ".join(part for part in (lead, rendition.text, tail) if part)
            elif item["shape"] == "announce":
                item["text"] = rendition.text
            elif rendition.register == "voiced":
                said = rng.choice(_VOICED_LEADS)
                text = lower_first(rendition.text) if isinstance(rendition, GroundedSlot) and said.endswith(",") \
                    else rendition.text
                item["text"] = " ".join(part for part in (said, text) if part)
            else:
                item["text"] = " ".join(part for part in (rng.choice(_ANSWER_LEADS), rendition.text) if part)
            if item["shape"] == "announce" and not lead:
                item["text"] = rng.choice(_ANNOUNCE).format(text=item["text"])
        stamps: list[str] = []
        last_second, last_micro = -1, 0
        for moment in times:
            second = int(moment.timestamp())
            micro = rng.randint(100, 899_999) if second != last_second else last_micro + rng.randint(1, 99)
            stamps.append(f"{second}.{micro:06d}")
            last_second, last_micro = second, micro

        messages: list[dict] = []
        for person, ts in zip(joins, stamps[:len(joins)]):
            messages.append({"type": "message", "subtype": "channel_join", "ts": ts, "user": ids[person.handle],
                             "text": f"<@{ids[person.handle]}> has joined the channel"})
        post_ts = stamps[len(joins):]
        fact_posts: dict[str, str] = {}
        for index, item in enumerate(posts):
            speaker: Colleague = item["speaker"]
            message: dict = {"type": "message", "user": ids[speaker.handle], "text": _slack_escape(item["text"]),
                             "ts": post_ts[index], "team": teams[speaker.org.id],
                             "client_msg_id": self._uuid(rng)}
            if item["parent"] is not None:
                message["thread_ts"] = post_ts[item["parent"]]
                message["parent_user_id"] = ids[posts[item["parent"]]["speaker"].handle]
            replies = [j for j, other_item in enumerate(posts) if other_item["parent"] == index]
            if replies:
                users = []
                for j in replies:
                    if ids[posts[j]["speaker"].handle] not in users:
                        users.append(ids[posts[j]["speaker"].handle])
                message.update({"thread_ts": post_ts[index], "reply_count": len(replies), "reply_users": users,
                                "reply_users_count": len(users), "latest_reply": post_ts[replies[-1]],
                                "replies": [{"user": ids[posts[j]["speaker"].handle], "ts": post_ts[j]}
                                            for j in replies]})
            if item["rendition"] is not None or rng.random() < 0.25:
                others = [p for p in people if p is not speaker]
                reactors = rng.sample(others, k=min(len(others), rng.randint(1, 3)))
                name = rng.choice(_REACTIONS)
                message["reactions"] = [{"name": name, "users": [ids[p.handle] for p in reactors],
                                         "count": len(reactors)}]
            if isinstance(item["rendition"], Rendition) and item["rendition"].status not in CUE_STATUSES:
                fact_posts[item["rendition"].fact_id] = post_ts[index]
            messages.append(message)
        messages.sort(key=lambda m: m["ts"])

        creator = people[0]
        first = int(times[0].timestamp())
        floor = int(dt.datetime.combine(context.config.history_start, dt.time(9, 0), tz).timestamp())
        created = min(max(first - rng.randint(3, 40) * 86400, floor), first)
        purposes = [line.format(**values) for line in (_PURPOSES[2:] if other else _PURPOSES[:2])]
        purpose = rng.choice(purposes)
        if has_doubled_words(purpose):  # a topic ending in a template's next word ("how agents work work")
            purpose = next((line for line in purposes if not has_doubled_words(line)), purpose)
        document = {
            "channel": {
                "id": _ident(rng, "C"), "name": channel_name, "created": created, "creator": ids[creator.handle],
                "is_channel": True, "is_ext_shared": other is not None, "is_archived": False,
                "members": [ids[p.handle] for p in people],
                "topic": {"value": upper_first(topic), "creator": ids[creator.handle], "last_set": created},
                "purpose": {"value": purpose, "creator": ids[creator.handle], "last_set": created},
            },
            "members": [{"id": ids[p.handle], "team_id": teams[p.org.id], "name": p.handle, "real_name": p.name,
                         "profile": {"title": p.title, "display_name": p.first, "real_name": p.name},
                         "deleted": False, "is_bot": False} for p in people],
            "messages": messages,
        }
        data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        metadata = {"channel": channel_name, "variant": variant, "members": {ids[p.handle]: p.name for p in people},
                    "posts": fact_posts, "timestamp_order": "ts"}
        timestamps = [plan_frame(dt.datetime.fromtimestamp(int(float(m["ts"])), tz), plan, tz) for m in messages]
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=list(plan.renditions), timestamps=timestamps, metadata=metadata)

    @staticmethod
    def _uuid(rng: random.Random) -> str:
        raw = f"{rng.getrandbits(128):032x}"
        return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-{'89ab'[int(raw[16], 16) % 4]}{raw[17:20]}-{raw[20:32]}"

    # ------------------------------------------------------------------------------------------- reading
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Parse the export with :mod:`json`: ``#channel``, its purpose and members, then one line per
        message in ``ts`` order, ``[YYYY-MM-DD HH:MM UTC] Real Name: text`` (thread replies prefixed
        ``(reply)``), with mentions shown as ``@Real Name`` and Slack's ``&amp;``/``&lt;``/``&gt;``
        decoded. ``author_text`` is not used."""
        parts = []
        for file in files:
            if file.suffix != SUFFIX:
                continue
            document = json.loads(file.data)
            channel = document.get("channel", {})
            names = {m.get("id"): m.get("real_name") or m.get("name", "") for m in document.get("members", [])}
            lines = [f"#{channel.get('name', '')}", f"Purpose: {channel.get('purpose', {}).get('value', '')}",
                     "Members: " + "; ".join(f"{m.get('real_name')} ({m.get('profile', {}).get('title', '')})"
                                             for m in document.get("members", [])), ""]
            for message in sorted(document.get("messages", []), key=lambda m: m.get("ts", "")):
                when = dt.datetime.fromtimestamp(float(message.get("ts", "0")), dt.timezone.utc)
                text = _MENTION.sub(lambda match, names=names: "@" + names.get(match.group(1), match.group(1)),
                                    message.get("text", ""))
                reply = "(reply) " if message.get("thread_ts") not in (None, message.get("ts")) else ""
                lines.append(f"[{when:%Y-%m-%d %H:%M} UTC] {reply}{names.get(message.get('user'), '?')}: "
                             f"{_slack_unescape(text)}")
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """Chains of the export (``ts`` and ``created`` are Unix epoch seconds): the channel's ``created``
        then every message in file order (the export is in ``ts`` order); the channel's ``created`` then
        its topic's and purpose's ``last_set``; each reply after the thread parent its ``thread_ts``
        names; each thread parent before every reply its ``replies`` list and its ``latest_reply``."""
        chains: list[Chain] = []
        for document in json_documents(files):
            channel = document.get("channel") if isinstance(document.get("channel"), dict) else {}
            created = epoch_stamp(channel.get("created"), "the channel's creation") if "created" in channel else None
            messages = [m for m in document.get("messages") or [] if isinstance(m, dict)]
            chains.append([s for s in [created, *(epoch_stamp(m.get("ts"), f"message {m.get('ts')}") for m in messages)]
                           if s])
            for part in ("topic", "purpose"):
                value = channel.get(part)
                if created is not None and isinstance(value, dict) and "last_set" in value:
                    chains.append([s for s in (created, epoch_stamp(value["last_set"], f"the {part}'s last_set")) if s])
            for message in messages:
                ts, thread = message.get("ts"), message.get("thread_ts")
                if thread is not None and thread != ts:
                    chains.append([s for s in (epoch_stamp(thread, f"thread parent {thread}"),
                                               epoch_stamp(ts, f"reply {ts}")) if s])
                listed = [r.get("ts") for r in message.get("replies") or [] if isinstance(r, dict)]
                if message.get("latest_reply") is not None:
                    listed.append(message["latest_reply"])
                for reply in listed:
                    chains.append([s for s in (epoch_stamp(ts, f"thread parent {ts}"),
                                               epoch_stamp(reply, f"its listed reply {reply}")) if s])
        return chains

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Export structure: one ``.json`` that parses, with ``channel`` (``id``, a valid lower-case
        ``name``, ``created``), ``members`` and ``messages``; every ``ts`` is ``seconds.micros``, unique and
        in increasing order, not before the channel was created; every message's ``user`` and every
        reaction user is a member; reaction ``count`` equals its users; a reply's ``thread_ts`` names an
        earlier thread parent, and each parent's ``reply_count``, ``replies`` and ``latest_reply`` match
        its replies."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "json_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        try:
            document = json.loads(files[0].data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return [error("structure", "json_unreadable", subject, "the export is not valid JSON", str(exc))]
        findings: list[Finding] = []
        if not isinstance(document, dict) or not all(k in document for k in ("channel", "members", "messages")):
            return [error("structure", "export_keys", subject, "the export lacks channel, members or messages")]
        channel = document["channel"]
        if not isinstance(channel, dict) or not channel.get("id") or not _NAME.match(str(channel.get("name", ""))):
            findings.append(error("structure", "bad_channel", subject, "the channel has no id or an invalid name",
                                  str(channel.get("name") if isinstance(channel, dict) else channel)))
        members = {m.get("id") for m in document["members"] if isinstance(m, dict)}
        messages = document["messages"]
        stamps = [str(m.get("ts", "")) for m in messages]
        if any(not _TS.match(ts) for ts in stamps):
            findings.append(error("structure", "bad_ts", subject, "a message ts is not seconds.microseconds"))
            return findings
        if len(set(stamps)) != len(stamps):
            findings.append(error("structure", "duplicate_ts", subject, "two messages share a ts"))
        if any(float(b) <= float(a) for a, b in zip(stamps, stamps[1:])):
            findings.append(error("structure", "messages_out_of_order", subject, "messages are not in ts order"))
        created = channel.get("created") if isinstance(channel, dict) else None
        if isinstance(created, int) and stamps and float(stamps[0]) < created:
            findings.append(error("structure", "message_before_channel", subject,
                                  "a message is older than the channel"))
        by_ts = {str(m.get("ts")): m for m in messages}
        replies_of: dict[str, list[dict]] = {}
        for message in messages:
            ts = str(message.get("ts"))
            if message.get("user") not in members:
                findings.append(error("structure", "unknown_user", subject, f"message {ts} is from a non-member",
                                      str(message.get("user"))))
            for reaction in message.get("reactions", []):
                users = reaction.get("users", [])
                if not reaction.get("name") or reaction.get("count") != len(users) or not set(users) <= members:
                    findings.append(error("structure", "bad_reaction", subject,
                                          f"a reaction on {ts} has a wrong count or unknown users"))
            thread = message.get("thread_ts")
            if thread is not None and thread != ts:
                parent = by_ts.get(str(thread))
                if parent is None or float(thread) >= float(ts) or parent.get("thread_ts") != thread:
                    findings.append(error("structure", "orphan_reply", subject,
                                          f"reply {ts} names no earlier thread parent", str(thread)))
                else:
                    replies_of.setdefault(str(thread), []).append(message)
        for message in messages:
            ts = str(message.get("ts"))
            replies = replies_of.get(ts, [])
            if "reply_count" in message or replies:
                listed = [r.get("ts") for r in message.get("replies", [])]
                if message.get("reply_count") != len(replies) or listed != [r.get("ts") for r in replies] or \
                        (replies and message.get("latest_reply") != replies[-1].get("ts")):
                    findings.append(error("structure", "thread_mismatch", subject,
                                          f"thread {ts} does not list its replies correctly",
                                          f"reply_count={message.get('reply_count')}, found {len(replies)}"))
        return findings


__all__ = ["ChannelExportGenre"]
