"""The web-screenshot genre: a screenshot (PNG) of the business's website help page or mobile-app screen.

Variants:

* ``website``: a help-centre FAQ page (1280×1000 CSS pixels) with the business's top bar, a breadcrumb,
  the questions (the renditions are the open answers, verbatim), side cards and a ``Last updated``
  line; written through ``web_screenshot/website.html.j2``;
* ``mobile_app``: a phone app screen (390×844 CSS pixels at device scale factor 2, so the PNG is
  780×1688) with a status bar, an app bar, help cards (the renditions) or card-control toggles, and
  a tab bar; written through ``web_screenshot/mobile_app.html.j2``.

The HTML page (all text escaped, inline CSS, no external resources; a small inline script scales the
page down when it would overflow the viewport so that every line is in the picture) is rendered by
headless Chromium (the Debian ``chromium`` package), started once per process and kept for the next
pages::

    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
             --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars
             --user-data-dir=<tmp> --remote-debugging-pipe about:blank

which opens a new tab per page (a new renderer process), sets the viewport (CSS size and device scale
factor), loads the page from a file and captures it over the DevTools protocol (see :class:`_Browser`),
and the PNG is normalised with Pillow (decoded,
converted to RGB, re-encoded with fixed settings and no ancillary chunks: no text, time or gamma
metadata), so the delivered bytes depend only on the page, Chromium and the installed fonts
(``fonts-liberation``), not on which pages the browser showed before. The delivered file is the PNG only; the
HTML is kept as ``author_text``. Pages with and without rules share one layout: a page's open
questions (website) or help cards (app) are drawn from the same count range whether or not some of
them state rules, the others being help text with no values. A page without rules gives the places of
rules to other subjects of its topic (as many as the plan's ``rule_slots``), asked about as rules are
and answered without a value (where the terms are, whom to ask); a page with rules names one such
subject now and then (none to two).

With a planned length (``plan.length_words``, tokens of visible text; the planner spreads them over each
variant's ``spread_words`` range), the page takes the amount of help text (generic questions, closed
questions and side cards; app help cards and toggles) that brings it closest to that length; the rules
it states and the subjects it answers are the same whatever the length (a longer page lists more
collapsed questions, some of them about other subjects of its topic), and only the chosen page is shot.

A superseded rendition is framed as history (an italic "earlier" line) only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the page's last-updated date;
otherwise it is the rule in force that day and is shown like any other answer. ``timestamps`` are the
page's last-updated time and the capture time (``plan.end``).
"""

from __future__ import annotations

from types import MappingProxyType

import base64
import ctypes
import datetime as dt
import io
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from multiprocessing import util
from pathlib import Path
from typing import Annotated, ClassVar

from PIL import Image
from pydantic import Field, field_validator

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.benchmarks import other_subjects, voiced_share
from taugen.generators.corpus.renditions import MENTION_QUESTIONS, deferred_statement, spoken_subject
from taugen.generators.corpus.genres.workplace import (
    item_label,
    long_day,
    office_time,
    plan_frame,
    subject_phrase,
    token_count,
    upper_first,
    visible_text,
    window,
    written_history,
    zone,
)
from taugen.generators.corpus.vocabulary import (
    GenreVocabulary,
    PairPool,
    Pool,
    register_vocabulary,
)
from taugen.findings import Finding, error

SUFFIX = ".png"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
VIEWPORTS = {"website": (1280, 1000, 1), "mobile_app": (390, 844, 2)}
"""CSS viewport width, height and device scale factor of each variant."""
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars")
_ACCENTS = (("#1f5f3f", "#eef6f1"), ("#1f4e79", "#eef4fa"), ("#7a2e2e", "#f8efef"), ("#3b3f8c", "#f0f0f9"))

# No digits and no number words: only renditions carry values. {S} subject, {T} topic.
_CLOSED = ("How do I update my contact details?", "Can I manage this in the mobile app?",
           "What if I disagree with a decision?", "Do I need to visit a {site}?",  # {site}: CommonWords
           "How do I reset my password?", "How do I switch to paperless statements?",
           "Can someone else manage my account for me?", "How do I report a scam?",
           "Where can I find my account documents?", "How do I give feedback about this page?")
CLOSED_SUBJECT_SHARE = 0.5
"""Share of a help page's collapsed questions that ask about another subject of its topic (the rest are
the generic :data:`_CLOSED` ones): a help centre lists its other answers as collapsed questions, so a rule's
subject is named on more pages than the one whose open answer states it, and searching the subject's
words finds those pages beside its owner. Carriers and fillers draw them alike."""
_LEDES = ("Answers to common questions about {T}.", "Everything you need to know about {T}.",
          "Help with {T}, in plain language.")
# Answers about a subject of the page's topic that state no value ({S} subject, {site}: CommonWords): the
# places a page without rules gives to the subjects its carriers' rules are about. No digits, no number words.
_SUBJECT_ANSWERS = ("The terms for {S} are set out in the account agreement, and notice is given before they change.",
                    "{US} depends on the account; the terms for each account are listed under Documents in {online}.",
                    "Staff in chat, by phone or at any {site} can explain {S} for a particular account.",
                    "{US} is explained in the account terms and shown on the statement when it applies.",
                    "The current terms for {S} are in the terms and conditions of the account.")
_SUBJECT_CARDS = ("The terms for this are listed under Documents.", "Chat with the team to check what applies to an account.",
                  "This depends on the account: the terms are under Documents.",
                  "Shown on the statement when it applies; the terms are under Documents.")
_SHAPES = {"website": [(open_, closed, cards) for open_ in range(2, 10) for closed, cards in ((1, 2), (4, 3), (9, 4))],
           "mobile_app": [(cards, toggles) for cards in range(1, 8) for toggles in (0, 6)]}
"""The page shapes a planned length chooses from: (open questions, closed questions, side cards) on the
website, (cards, toggles) in the app; help text only, never a rule more or less (a collapsed question may
ask about another subject: :data:`CLOSED_SUBJECT_SHARE`)."""
_APP_NOTES = ("Changes take effect straight away.", "Questions? Tap Help to chat with us.",
              "Manage your alerts in Settings.")


class WebScreenshotWords(GenreVocabulary):
    """The ``web_screenshot`` section of a pack's ``vocabulary.yaml``: the business's help pages and app.

    No digits and no number words. Attributes:
        help_questions: ``[question, answer]`` entries of a help-centre page that state no rule; a question
            may name the page's topic as ``{T}``.
        website_cards: ``[title, body]`` side cards of the help-centre page.
        app_help: ``[title, body]`` help cards of the mobile app.
        app_controls_title: the title of the app's card of on/off controls ("Card controls").
        app_controls: the labels of those controls ("Lock card").
        app_tabs: the app's bottom tabs, in order; one of them is ``Help`` (the screen shown).
        footer_notice: the legal line after the brand in the website's footer ("Member FDIC. Equal Housing
            Lender."); empty for none.
    """

    placeholders: ClassVar[Mapping[str, frozenset[str]]] = {"help_questions": frozenset({"T"})}

    help_questions: PairPool
    website_cards: Annotated[PairPool, Field(min_length=2)]
    app_help: PairPool
    app_controls_title: str = Field(min_length=1)
    app_controls: Annotated[Pool, Field(min_length=4)]
    app_tabs: Pool
    footer_notice: str

    @field_validator("app_tabs")
    @classmethod
    def _help_tab(cls, tabs: tuple[str, ...]) -> tuple[str, ...]:
        if "Help" not in tabs:
            raise ValueError("the app's tabs must include Help (the screen a screenshot shows)")
        return tabs


NEUTRAL_WORDS = WebScreenshotWords(
    help_questions=(
        ("How do I contact you about {T}?", ("Call us, send a secure message from your online account, or chat "
                                             "with us in the app.")),
        ("Where can I find letters about {T}?", "Letters and notices are in your online account under Documents."),
        ("How do I make a complaint?", ("Tell us by phone, in chat or by secure message and we will log it "
                                        "straight away.")),
        ("Is my information safe?", "We will never ask for your full password or a one-time code by phone or email."),
    ),
    website_cards=(("Need more help?", "Send us a secure message from your online account."),
                   ("Talk to us", "Call or chat with our team, every day."),
                   ("Security centre", "Learn how we protect your account.")),
    app_help=(("Chat with us", "Tap Chat to message our team; we reply right here in the app."),
              ("Update your details", "Change your address, email or phone number under Profile."),
              ("Paperless documents", "Your bills and letters are under Documents in the menu."),
              ("Report a problem", "Call us straight away if something on your account looks wrong.")),
    app_controls_title="Notifications",
    app_controls=("Account alerts", "Marketing messages", "Payment reminders", "Security alerts"),
    app_tabs=("Home", "Account", "Help", "More"),
    footer_notice="All rights reserved.",
)
register_vocabulary("web_screenshot", WebScreenshotWords, NEUTRAL_WORDS)


def subject_of(fact) -> str:
    """A fact's subject as a page writes it mid-sentence, without a final full stop: an article that opens
    it in lower case, any other first word as the pack writes it ("Saturday hours at ...", "ATM ...")."""
    subject = (fact.subject or "").strip().rstrip(".")
    first = subject.split(" ", 1)[0]
    return subject[:1].lower() + subject[1:] if first in ("The", "A", "An") else subject


def chromium_executable() -> str:
    """Path of the headless Chromium browser.

    Raises:
        RuntimeError: Chromium is not installed (Debian package ``chromium``).
    """
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("the web_screenshot genre needs headless Chromium: install the Debian package "
                       "'chromium' (apt-get install chromium fonts-liberation, or scripts/setup.sh)")


def screenshot(html: str, width: int, height: int, scale: int = 1) -> bytes:
    """Render ``html`` in headless Chromium at ``width``×``height`` CSS pixels and return normalised PNG
    bytes (see the module docstring).

    The page is shot by this process's browser (:class:`_Browser`, started on first use and kept for the
    next pages): a fresh browser per page cost about two seconds of CPU, most of it starting Chromium.
    A browser that fails is closed and the page is shot once more by a fresh one.

    Raises:
        RuntimeError: Chromium is missing, fails, or writes no image.
    """
    global _BROWSER
    executable = chromium_executable()
    for attempt in (1, 2):
        browser = _BROWSER
        if browser is None or browser.pid != os.getpid() or browser.executable != executable:
            browser = _BROWSER = _Browser(executable)  # a forked worker starts its own: pipes are not shared
        try:
            return normalise_png(browser.shot(html, width, height, scale))
        except RuntimeError:
            browser.close()
            _BROWSER = None
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class _Browser:
    """A headless Chromium driven over the Chrome DevTools Protocol on a pipe (``--remote-debugging-pipe``:
    the browser reads NUL-terminated JSON commands on file descriptor 3 and writes replies and events on
    descriptor 4; https://chromedevtools.github.io/devtools-protocol/). Each screenshot has a tab of its
    own, which Chromium gives a new renderer process, closed once shot: in one long-lived tab, a page's
    text came out with slightly different anti-aliasing depending on the dozens of pages shown before it
    (two builds in one process differed in two PNGs of 75), and a tab costs about 0.05 s against 2 s for
    a new browser. In the tab the viewport is set with ``Emulation.setDeviceMetricsOverride`` (the CSS
    size and the device scale factor the command-line ``--window-size`` and
    ``--force-device-scale-factor`` set), the page is loaded from a file, and once its load event has
    fired and its fonts are ready ``Page.captureScreenshot`` takes the viewport. The browser dies with the process that started it
    (``PR_SET_PDEATHSIG`` on Linux) and is closed, its profile folder removed, when that process exits.
    """

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.pid = os.getpid()
        self.folder = tempfile.mkdtemp(prefix="screenshot-browser-")
        self.count = 0
        self.next_id = 0
        self.buffer = b""
        self.targets: list[str] = []  # every tab opened, in order (each page has its own)
        self.process: subprocess.Popen | None = None
        commands_read, commands_write = os.pipe()
        replies_read, replies_write = os.pipe()

        def in_child() -> None:  # runs in the forked child before exec: the pipe ends on fds 3 and 4
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)
            _die_with_parent()

        command = [executable, *CHROMIUM_FLAGS, f"--user-data-dir={Path(self.folder) / 'profile'}",
                   "--remote-debugging-pipe", "about:blank"]
        try:
            self.process = subprocess.Popen(command, preexec_fn=in_child, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True)  # its helpers share its process group
        except OSError as exc:
            for fd in (commands_read, commands_write, replies_read, replies_write):
                os.close(fd)
            shutil.rmtree(self.folder, ignore_errors=True)
            raise RuntimeError(f"chromium could not be started: {exc}") from None
        os.close(commands_read)
        os.close(replies_write)
        self.commands, self.replies = commands_write, replies_read
        util.Finalize(self, _Browser._shutdown, args=(self.process, self.commands, self.replies, self.folder,
                                                      self.pid), exitpriority=10)
        try:
            self.call("Browser.getVersion")  # the browser answers on its pipe before the first page
        except RuntimeError:
            self.close()
            raise

    def shot(self, html: str, width: int, height: int, scale: int) -> bytes:
        """The PNG of ``html`` at ``width``×``height`` CSS pixels and device scale factor ``scale``, shot in
        a tab of its own (so in a renderer process no other page used) that is closed after.

        Raises:
            RuntimeError: the browser refuses a command, stops answering, or does not finish the page.
        """
        self.count += 1
        page = Path(self.folder) / f"page-{self.count}.html"
        page.write_text(html, encoding="utf-8")
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.targets.append(target)
        try:
            session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.call("Page.enable", session=session)
            self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                             "deviceScaleFactor": scale, "mobile": False},
                      session=session)
            self.call("Page.navigate", {"url": page.as_uri()}, session=session, event="Page.loadEventFired")
            ready = "document.fonts.ready.then(() => location.href + ' ' + document.readyState)"
            state = self.call("Runtime.evaluate", {"expression": ready, "awaitPromise": True, "returnByValue": True},
                              session=session)
            if state.get("result", {}).get("value") != f"{page.as_uri()} complete":
                raise RuntimeError(f"chromium did not finish loading the page: {state}")
            data = self.call("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True},
                             session=session)["data"]
        except RuntimeError:
            page.unlink(missing_ok=True)
            raise  # the caller closes this browser: no tab to close
        page.unlink(missing_ok=True)
        self.call("Target.closeTarget", {"targetId": target})
        return base64.b64decode(data)

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             event: str | None = None) -> dict:
        """Send one command and return its result, reading until the reply (and ``event``, when named,
        from the same session) has come; events in between are dropped."""
        self.next_id += 1
        message: dict = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            os.write(self.commands, json.dumps(message).encode() + b"\0")
        except OSError as exc:
            raise RuntimeError(f"chromium stopped taking commands: {exc}") from None
        result, seen = None, event is None
        while result is None or not seen:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"chromium refused {method}: {reply['error']}")
                result = reply.get("result", {})
            elif event and reply.get("method") == event and reply.get("sessionId") == session:
                seen = True
        return result

    def _read(self) -> dict:
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.replies], [], [], _TIMEOUT)
            if not ready:
                raise RuntimeError(f"chromium did not answer within {_TIMEOUT} s")
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium closed its pipe (exit {self.process.poll() if self.process else None})")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self) -> None:
        """Stop the browser and remove its profile folder (only in the process that started it)."""
        if self.process is not None:
            _Browser._shutdown(self.process, self.commands, self.replies, self.folder, self.pid)
            self.process = None

    @staticmethod
    def _shutdown(process: subprocess.Popen, commands: int, replies: int, folder: str, pid: int) -> None:
        if os.getpid() != pid or process.returncode is not None:
            return
        for fd in (commands, replies):
            try:
                os.close(fd)
            except OSError:
                pass
        for signal_number in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, signal_number)  # the browser and its helper processes (its own group)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                process.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        # Chromium keeps its singleton socket in a folder of its own in TMPDIR (org.chromium.Chromium.*),
        # linked from the profile, and leaves it when stopped by a signal: remove it too. (Pointing TMPDIR
        # into our folder instead makes the socket's path too long for a Unix socket address under a long
        # TMPDIR, and Chromium aborts.)
        link = Path(folder) / "profile" / "SingletonSocket"
        if link.is_symlink():
            socket_folder = Path(os.readlink(link)).parent
            if socket_folder.name.startswith("org.chromium.Chromium."):
                shutil.rmtree(socket_folder, ignore_errors=True)
        for _ in range(20):  # a helper may still be writing into the profile for a moment
            shutil.rmtree(folder, ignore_errors=True)
            if not os.path.exists(folder):
                break
            time.sleep(0.05)


_BROWSER: _Browser | None = None
"""This process's browser (a forked worker sees its parent's here and starts its own)."""
_TIMEOUT = 120


def _die_with_parent() -> None:
    """Ask Linux to kill this (child) process when the process that started it dies, so that a worker
    killed by its pool never leaves a browser behind; elsewhere nothing."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def normalise_png(data: bytes) -> bytes:
    """Decode and re-encode a PNG as 8-bit RGB with fixed zlib settings and no ancillary chunks."""
    with Image.open(io.BytesIO(data)) as picture:
        rgb = picture.convert("RGB")
    out = io.BytesIO()
    rgb.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the PNG's IHDR chunk, or None when it is not a PNG."""
    if not data.startswith(PNG_MAGIC) or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


@register_genre
class WebScreenshotGenre(Genre):
    """A website or mobile-app screenshot rendered by headless Chromium; see the module docstring.

    ``metadata``: ``variant``, ``png_size`` ([width, height] in device pixels), ``viewport``,
    ``updated`` and ``captured_at`` (ISO 8601).
    """

    name = "web_screenshot"
    reference_kinds = MappingProxyType({"website": "screenshot", "mobile_app": "device_screen"})
    label = "Website / app screenshot (PNG)"
    mention_audience = "reader"
    mention_host = True
    spoken_mentions = True
    """A help page's questions are asked in customers' words (the pack's spoken wordings) as often as the
    tier voices rules, its planned mentions' questions alike; its answers keep the expert's words."""
    max_mentions = 2
    """A help page asks about other subjects of its topic without a value; the planner plans some of those
    questions as mentions (talk about a rule beyond its owner), the page adds others itself. Two planned
    mentions a page at most: pages take planned lengths, and with up to four (as room allowed) 37 of seed
    0's 100 pages overshot theirs by a bucket and a third of them fell in one length bucket (the gate
    allows 25 %); with one, a web-owned rule's subject was on three pages on average (seed 2), so a search
    on its words put the owner in the top three for 79 % of them. Two pass the length gate at seeds 0, 1, 2, 4 and 5."""
    max_facts = 4
    variants = ("website", "mobile_app")
    affinity = (("money", "website", 4), ("percent", "website", 3), ("duration", "website", 3),
                ("duration", "mobile_app", 1), ("text", "website", 4),
                ("cap", "mobile_app", 3), ("count", "mobile_app", 2), ("boolean", "mobile_app", 1),
                ("enum", "website", 1))
    """A bank's own fee, rate, limit and help pages state many of its rules; only in the canonical
    register (the genre is not ``voiced``), so the facts drawn to be voiced go to a genre where people
    talk. Weighted so that screenshots are 6-7 % of a hard banking corpus (issue 10, item 7); free-text
    rules go to the website (the app screens take limits, counts, yes/no rules and some durations)."""
    spread_words = {"website": (120, 350), "mobile_app": (65, 165)}
    """Planned lengths (tokens of visible text) per variant: the planner spreads them over the pages so that
    their lengths cover the ranges at any count (the length gate measures the genre from twelve pages)."""
    binary = True
    medium = "image"
    substitute = ("knowledge_base_archive", "")
    """When the modality profile has no images, the planner moves the renditions to an HTML archive."""

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the page, screenshot it with Chromium, keep the HTML author-side.

        Raises:
            ValueError: more renditions than ``max_facts``.
            RuntimeError: Chromium is missing or fails.
        """
        if len(plan.renditions) > self.max_facts:
            raise ValueError(f"{plan.artifact_id}: web_screenshot holds at most {self.max_facts} facts")
        tz = zone(context)
        start, end = window(plan, tz)
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        if plan.length_words:  # the page whose visible text is closest to the planned length (earliest of equals)
            pages = [self._page(plan, context, variant, start, end, shape) for shape in _SHAPES[variant]]
            html, updated = min(pages, key=lambda page: abs(token_count(visible_text(page[0])) - plan.length_words))
        else:
            html, updated = self._page(plan, context, variant, start, end, None)
        width, height, scale = VIEWPORTS[variant]
        data = screenshot(html, width, height, scale)
        size = png_size(data)
        metadata = {"variant": variant, "png_size": list(size) if size else None, "viewport": [width, height, scale],
                    "updated": updated.isoformat(), "captured_at": end.isoformat()}
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data, "image")], author_text=html,
                                renditions=list(plan.renditions),
                                timestamps=[plan_frame(updated, plan, tz), plan_frame(end, plan, tz)],
                                metadata=metadata)

    def _page(self, plan: ArtifactPlan, context: RenderContext, variant: str, start: dt.datetime, end: dt.datetime,
              shape: tuple[int, ...] | None) -> tuple[str, dt.datetime]:
        """The page's HTML and its last-updated time. ``shape`` fixes how much help text surrounds the rules
        (website: open questions, closed questions; app: cards, toggles); None draws it."""
        rng = plan.rng("screenshot")
        dated = [r.date for r in plan.renditions] or [end.date()]
        updated = office_time(rng, min(max(max(dated), start.date()), end.date()), start, end)
        accent, tint = rng.choice(_ACCENTS)
        topic = subject_phrase(plan)
        ordered = sorted(plan.renditions, key=lambda r: (r.status == "superseded" and plan.successor(r.fact_id)
                                                         is not None, r.date, r.fact_id))
        if variant == "website":
            return self._website(rng, plan, context, ordered, updated.date(), topic, accent, tint, shape), updated
        return self._app(rng, plan, context, ordered, updated.date(), topic, accent, end, shape), updated

    @staticmethod
    def _answers(rng, plan: ArtifactPlan, group: list[Rendition], day: dt.date) -> list[dict]:
        answers = []
        for rendition in group:
            lead, tail = written_history(rng, plan, rendition, day)
            text = " ".join(part for part in (lead, rendition.text, tail) if part)
            answers.append({"text": text, "earlier": bool(lead)})
        return answers

    def _groups(self, plan: ArtifactPlan, ordered: list[Rendition], day: dt.date) -> list[list[Rendition]]:
        """One group per rule in force; a rule shown as history joins its successor's group (mentions are
        :meth:`_subjects`'s)."""
        groups: list[list[Rendition]] = []
        for rendition in ordered:
            if rendition.status == "mention":
                continue
            if shown_as_history(plan, rendition, day):
                newer = plan.successor(rendition.fact_id)
                home = next((g for g in groups if newer is not None and g[0].fact_id == newer.id), None)
                if home is not None:
                    home.append(rendition)
                    continue
            groups.append([rendition])
        return groups

    @staticmethod
    def _subjects(rng, context: RenderContext, plan: ArtifactPlan, rules: int) -> list[tuple[object, str]]:
        """``(fact, question)`` for each subject of the page's topic that it names without a value: first
        the planned mentions (the question is the rendition's text), then other subjects
        (:func:`other_subjects`, the page's own genre's first; question ``''``, drawn by the caller) up to
        the number wanted: on a page without rules as many as the plan's ``rule_slots`` (the rule count of
        a page with rules; one to three unplanned), on a page with rules none to two, so that the
        subjects a page names do not tell whether it states rules."""
        mentioned = [(plan.facts[r.fact_id], r.text) for r in plan.renditions
                     if r.status == "mention" and r.fact_id in plan.facts]
        subjects = other_subjects(context, plan, rng)
        wanted = rng.choice((0, 1, 1, 2)) if rules else plan.rule_slots or rng.choice((1, 2, 3))
        return mentioned + [(fact, "") for fact in subjects[:max(wanted - len(mentioned), 0)]]

    def _website(self, rng, plan: ArtifactPlan, context: RenderContext, ordered: list[Rendition], day: dt.date,
                 topic: str, accent: str, tint: str, shape: tuple[int, ...] | None = None) -> str:
        domain_words: WebScreenshotWords = context.vocabulary.words(self.name)  # type: ignore[assignment]
        published_in = context.vocabulary.common.published_in  # a subject's rule, its figure deferred there
        saying, voiced = plan.rng("spoken subjects"), voiced_share(context)
        spoken = context.vocabulary.words("spoken")

        def asked(subject: str) -> str:
            """A question's subject in customers' words as often as the tier voices rules (the planner asks
            a planned mention's question so too: ``spoken_mentions``), so a question's words say nothing
            of whether a rule answers it, and the answer is not found by its question's words alone."""
            if saying.random() < voiced:
                return spoken_subject(subject, spoken, saying)  # type: ignore[arg-type]
            return subject

        entries = []
        for group in self._groups(plan, ordered, day):
            fact = plan.facts.get(group[0].fact_id)
            said = subject_of(fact) if fact is not None and fact.subject else subject_phrase(plan, group[0])
            question = rng.choice(MENTION_QUESTIONS).format(subject=asked(said))
            entries.append({"question": upper_first(question), "answers": self._answers(rng, plan, group, day)})
        terms = context.vocabulary.common.terms()
        subjects = self._subjects(rng, context, plan, len(entries))
        for fact, question in subjects:
            subject = subject_of(fact)
            answer = rng.choice(_SUBJECT_ANSWERS).format(S=subject, US=upper_first(subject), **terms)
            entries.insert(rng.randint(0, len(entries)), {
                "question": upper_first(question or rng.choice(MENTION_QUESTIONS).format(subject=asked(subject))),
                "answers": [{"text": deferred_statement(fact, published_in) or answer, "earlier": False}]})
        fillers = list(domain_words.help_questions)
        rng.shuffle(fillers)
        wanted = rng.randint(2, 6) if shape is None else shape[0]  # open questions, with or without rules
        for question, answer in fillers[:max(wanted - len(entries), 0)]:
            entries.insert(rng.randint(0, len(entries)), {"question": question.format(T=topic),
                                                          "answers": [{"text": answer, "earlier": False}]})
        closed = [q.format(**terms) for q in rng.sample(_CLOSED, k=rng.randint(1, 3) if shape is None else shape[1])]
        named = {fact.id for fact, _ in subjects} | {fact_id for fact_id in plan.facts}
        others = iter([fact for fact in other_subjects(context, plan, rng) if fact.id not in named])
        for index in range(len(closed)):  # some collapsed questions ask about the topic's other subjects
            fact = next(others, None) if rng.random() < CLOSED_SUBJECT_SHARE else None
            if fact is not None:
                closed[index] = upper_first(rng.choice(MENTION_QUESTIONS).format(subject=asked(subject_of(fact))))
        entries += [{"question": q, "answers": []} for q in closed]
        section = plan.topic_title or "Help"
        heading = f"{section}: frequently asked questions" if rng.random() < 0.5 else f"Help with {topic}"
        return context.templates.get_template("web_screenshot/website.html.j2").render(
            viewport_height=VIEWPORTS["website"][1], brand=context.config.brand, accent=accent, tint=tint,
            section=section, heading=upper_first(heading),
            lede=rng.choice(_LEDES).format(T=topic), entries=entries,
            cards=[{"title": title, "body": body} for title, body in
                   rng.sample(domain_words.website_cards, k=2 if shape is None else min(shape[2],
                                                                                          len(domain_words.website_cards)))],
            footer_notice=domain_words.footer_notice, updated=long_day(day))

    def _app(self, rng, plan: ArtifactPlan, context: RenderContext, ordered: list[Rendition], day: dt.date,
             topic: str, accent: str, captured: dt.datetime, shape: tuple[int, ...] | None = None) -> str:
        domain_words: WebScreenshotWords = context.vocabulary.words(self.name)  # type: ignore[assignment]
        published_in = context.vocabulary.common.published_in  # a subject's rule, its figure deferred there
        cards = []
        for group in self._groups(plan, ordered, day):
            cards.append({"title": item_label(plan, group[0]), "paragraphs": self._answers(rng, plan, group, day),
                          "rows": []})
        for fact, question in self._subjects(rng, context, plan, len(cards)):
            title = question or rng.choice(MENTION_QUESTIONS).format(subject=subject_of(fact))
            text = rng.choice(_SUBJECT_CARDS)
            cards.insert(rng.randint(0, len(cards)), {"title": upper_first(title), "rows": [], "paragraphs": [
                {"text": deferred_statement(fact, published_in) or text, "earlier": False}]})
        helps = list(domain_words.app_help)
        rng.shuffle(helps)
        wanted = rng.randint(2, 4) if shape is None else shape[0]  # cards on the screen, with or without rules
        for title, text in helps[:max(wanted - len(cards), 0)]:
            cards.insert(rng.randint(0, len(cards)), {"title": title, "paragraphs": [{"text": text, "earlier": False}],
                                                      "rows": []})
        if (rng.random() < 0.35) if shape is None else shape[1]:
            toggles = rng.sample(domain_words.app_controls, k=min(len(domain_words.app_controls),
                                                                  rng.randint(2, 4) if shape is None else shape[1]))
            cards.append({"title": domain_words.app_controls_title, "paragraphs": [],
                          "rows": [{"label": label, "on": rng.random() < 0.5} for label in toggles]})
        heading, back, active = upper_first(plan.topic_title or "Help"), "Help", "Help"
        hour = captured.hour % 12 or 12
        return context.templates.get_template("web_screenshot/mobile_app.html.j2").render(
            viewport_height=VIEWPORTS["mobile_app"][1], accent=accent, clock=f"{hour}:{captured.minute:02d}",
            battery=rng.randint(8, 17), back=back,
            heading=heading, search=True, cards=cards,
            note=f"Updated {long_day(day)}. {rng.choice(_APP_NOTES)}", tabs=domain_words.app_tabs,
            active=active)

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """The visible text of the author-side HTML page the screenshot was taken of (read with
        :mod:`html.parser`; head, style and script skipped). The delivered PNG has no text reader here
        (no OCR), so this genre, like audio, reads ``author_text``; the page is laid out so that every
        visible line is inside the captured viewport."""
        return visible_text(author_text)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """One PNG (W3C Portable Network Graphics specification, https://www.w3.org/TR/png/): the
        8-byte signature and an IHDR first chunk (§5.2, §11.2.2), a plausible size (320–4096 pixels
        wide, 320–8192 high), an IEND last chunk (§11.2.5), and the size in ``metadata['png_size']``
        when recorded; and an author-side page with visible text."""
        subject = artifact.plan.artifact_id
        images = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(images) != 1:
            return [error("structure", "png_missing", subject, f"expected one {SUFFIX} file, found {len(images)}")]
        data = images[0].data
        size = png_size(data)
        if size is None:
            return [error("structure", "png_invalid", subject, "the screenshot is not a PNG (bad signature or IHDR)")]
        findings: list[Finding] = []
        width, height = size
        if not (320 <= width <= 4096 and 320 <= height <= 8192):
            findings.append(error("structure", "png_size", subject, f"implausible screenshot size {width}x{height}"))
        if not data.endswith(b"IEND\xaeB`\x82"):
            findings.append(error("structure", "png_truncated", subject, "the PNG does not end with IEND"))
        recorded = artifact.metadata.get("png_size")
        if recorded and list(recorded) != [width, height]:
            findings.append(error("structure", "png_size_mismatch", subject,
                                  f"the PNG is {width}x{height}, metadata says {recorded}"))
        if artifact.author_text and not visible_text(artifact.author_text).strip():
            findings.append(error("structure", "empty_page", subject, "the page behind the screenshot shows no text"))
        return findings


__all__ = ["WebScreenshotGenre", "screenshot", "normalise_png", "png_size", "chromium_executable"]
