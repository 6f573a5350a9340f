"""The call-recording genre: a recorded phone call between a bank agent and a customer.

The call is written as a phone transcript by the ``support_transcript`` genre's conversation builder
(:func:`~taugen.generators.corpus.genres.support_conversation.build_conversation`) and grown to the length
the planner gave it (``plan.length_words``, stratified over the calls between :data:`MIN_WORDS` and
:data:`MAX_WORDS`: about 45 seconds to three minutes) with the ordinary steps of a service call
(:func:`extend_call`: security questions, the account loading, background, a hold, contact details, a
recap, a call reference ...), then synthesised to speech:

1. each turn is spoken by ``espeak-ng`` (one WAV per turn, written to a temporary directory) with two
   distinct voices, the agent's (an ``en-us`` variant) and the customer's (an ``en-gb``/other variant),
   with speaking rate (words per minute) and pitch drawn from the plan's random generator;
2. the turns are concatenated with pydub, separated by short pauses (200–700 ms), or by a quiet stretch
   where the customer waits (the agent reading the account, a hold: 8 s to about three minutes,
   :data:`~taugen.generators.corpus.genres.support_conversation.WAIT_SECONDS`), listed in the metadata;
3. the result is converted to telephone quality: mono, 8000 Hz, 16-bit PCM, band-limited to roughly
   300–3400 Hz (first-order RC high-pass then low-pass, as pydub's filters but vectorised with numpy;
   the ITU-T G.712 voice band) with low-level Gaussian line noise from
   ``numpy.random.default_rng(seed)`` mixed in;
4. it is exported as a RIFF/WAVE file (pydub writes WAV with the stdlib ``wave`` module, so no
   encoder version leaks into the bytes).

Everything is deterministic: espeak-ng output depends only on its input and version (for the voice
variants used, none of which draws breath noise from ``rand()``); noise, voices,
rates and pauses come from the plan's seed. The delivered file is the ``.wav``; the transcript is
kept author-side (``RenderedArtifact.author_text``) because audio has no text reader.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import io
import math
import random
import os
import re
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np
from pydub import AudioSegment

from taugen.generators.corpus.genre import ArtifactPlan, Genre, RenderContext, RenderedArtifact, RenderedFile, birth_date, register_genre
from taugen.hashing import stable_seed
from taugen.generators.corpus.genres.support_lines import AGENT_ANYTHING, VERIFY
from taugen.generators.corpus.genres.support_conversation import (
    Conversation,
    Turn,
    build_conversation,
    conversation_metadata,
    fit_to_window,
    in_plan_frame,
    local_zone,
    merge_same_speaker,
    wait_seconds,
)
from taugen.generators.corpus.genres.support_transcript import (
    check_turns,
    customer_opening,
    parse_turns,
    render_transcript,
    transcript_dates,
)
from taugen.generators.corpus.stamps import Chain
from taugen.findings import Finding, error, warning

SUFFIX = ".wav"
SAMPLE_RATE = 8000
"""Telephone sample rate in Hz (ITU-T G.711 narrowband)."""
MAX_TURNS = 60
MIN_WORDS = 120
MAX_WORDS = 480
"""A call's length in words (the planner stratifies it over the calls, ``spread_words``): at espeak's pace
(about 170 words per minute with pauses) from under a minute to about three minutes, as service calls
that do not end after the first answer run. The top stays under the realism gates' long-document size
(1,000 tokens with the transcript's turn labels), so stock phrases of a contact centre, which real
calls share, are not held to the handbook rule."""
MAX_SECONDS = 360.0
"""Seconds of speech (the recording outside its waits) a call stays under: a longer one is spoken faster."""
WPM_RANGE = (100.0, 260.0)
"""Plausible words per minute of the recording outside its waits (speech plus the pauses between turns)."""
QUIET_RMS = 200.0
"""Loudest RMS (16-bit sample units) a wait may have: the line noise is 40, speech is in the thousands."""

# (espeak-ng language, variant, gender of the name given to the speaker). No variant with a ``breath`` (or
# ``klatt``) line: espeak-ng draws their aspiration noise from the C library's rand() (before 1.52 there is
# no deterministic mode: https://github.com/espeak-ng/espeak-ng/issues/1528), and a build of banking hard
# seed 0 on a loaded machine once wrote one turn of an f3 agent differently, so the .wav and the build hash
# differed between two builds. f2, f3 and f5 have one.
AGENT_VOICES = (
    ("en-us", "f4", "female"), ("en-us", "f1", "female"), ("en-us", "linda", "female"),
    ("en-us", "m3", "male"), ("en-us", "m2", "male"),
)
CUSTOMER_VOICES = (
    ("en-gb", "m3", "male"), ("en-gb", "Annie", "female"), ("en-gb-x-rp", "m4", "male"),
    ("en-gb", "Andrea", "female"), ("en-029", "m2", "male"), ("en-gb-scotland", "m1", "male"),
)


def espeak_executable() -> str:
    """Path of ``espeak-ng``.

    Raises:
        RuntimeError: espeak-ng is not installed (name the apt package to install).
    """
    path = shutil.which("espeak-ng")
    if path is None:
        raise RuntimeError("call_recording needs the espeak-ng speech synthesiser, which is not installed; "
                           "install the 'espeak-ng' package (e.g. apt-get install espeak-ng)")
    return path


_MONEY = re.compile(r"([$\u20ac\u00a3])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))?(?!\d)")
_MONEY_WORDS = {"$": ("dollar", "dollars", "cent", "cents"), "\u20ac": ("euro", "euros", "cent", "cents"),
                "\u00a3": ("pound", "pounds", "penny", "pence")}


def _spoken_money(match: re.Match) -> str:
    unit, units, sub, subs = _MONEY_WORDS[match.group(1)]
    whole, cents = int(match.group(2).replace(",", "")), int(match.group(3) or 0)
    spoken_cents = f"{cents} {sub if cents == 1 else subs}"
    if whole == 0 and cents:
        return spoken_cents
    spoken = f"{whole} {unit if whole == 1 else units}"
    return f"{spoken} and {spoken_cents}" if cents else spoken


def speakable(text: str) -> str:
    """Text as handed to espeak-ng.

    Money is rewritten the way an agent says it (espeak reads ``$25.00`` as "dollar twenty five point zero
    zero"; ``$25.00`` becomes ``25 dollars``, ``$1,250.50`` becomes ``1250 dollars and 50 cents``) and dashes
    become commas. Everything else (``3%``, dates, day counts) espeak reads correctly as written.
    """
    text = _MONEY.sub(_spoken_money, text)
    text = re.sub(r"\s*[\u2013\u2014]\s*", ", ", text)
    return " ".join(text.split())


_ESPEAK_PARALLEL = 4
"""espeak-ng processes run at once per call (a call has up to :data:`MAX_TURNS` turns)."""
_ESPEAK_TIMEOUT = 300.0
"""Seconds one espeak-ng process may take, even on a loaded machine, before the build fails."""


def _espeak_environment() -> dict[str, str]:
    """The environment espeak-ng runs in: the build's PATH and a fixed locale, nothing else, so the
    user's locale or ``ESPEAK_DATA_PATH`` cannot change how text is read."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}


def read_pcm_wav(path: Path) -> AudioSegment:
    """A PCM WAV written by espeak-ng, read with the stdlib ``wave`` module only.

    pydub's ``from_wav`` silently falls back to decoding with ffmpeg when its own reader fails, which
    would make the bytes depend on ffmpeg's version and on a transient read error; here a short or
    malformed file is an error instead.

    Raises:
        RuntimeError: the file is not complete 16-bit PCM (its header and its data disagree).
    """
    data = path.read_bytes()
    try:
        with wave.open(io.BytesIO(data), "rb") as reader:
            channels, width, rate, frames = (reader.getnchannels(), reader.getsampwidth(), reader.getframerate(),
                                             reader.getnframes())
            pcm = reader.readframes(frames)
    except (wave.Error, EOFError) as exc:
        raise RuntimeError(f"espeak-ng wrote an unreadable WAV ({path.name}): {exc}") from None
    if width != 2 or len(pcm) != frames * channels * width:
        raise RuntimeError(f"espeak-ng wrote an incomplete WAV ({path.name}): {len(pcm)} bytes of PCM for "
                           f"{frames} frames of {channels}x{width} bytes")
    return AudioSegment(data=pcm, sample_width=width, frame_rate=rate, channels=channels)


def synthesise(jobs: list[tuple[str, str, int, int]], workdir: Path) -> list[AudioSegment]:
    """Speak each ``(text, voice, words_per_minute, pitch)`` job with espeak-ng; one segment per job.

    The jobs run as espeak-ng processes (at most :data:`_ESPEAK_PARALLEL` at once) writing
    ``turnNN.wav`` files (22050 Hz mono 16-bit) into ``workdir``; text is passed in a file (``-f``) so no
    text is parsed as an option. Each file is read back with :func:`read_pcm_wav` once its process has
    exited. espeak-ng's output depends only on the text, voice, rate, pitch and its own version.

    Raises:
        RuntimeError: espeak-ng is missing, fails, times out (its stderr is quoted) or writes a bad WAV.
    """
    executable = espeak_executable()
    environment = _espeak_environment()
    commands = []
    for index, (text, voice, speed, pitch) in enumerate(jobs):
        source = workdir / f"turn{index:02d}.txt"
        target = workdir / f"turn{index:02d}.wav"
        source.write_text(speakable(text), encoding="utf-8")
        commands.append(([executable, "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(target),
                          "-f", str(source)], target))
    segments: list[AudioSegment] = []
    for start in range(0, len(commands), _ESPEAK_PARALLEL):
        batch = [(subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, env=environment), target)
                 for command, target in commands[start:start + _ESPEAK_PARALLEL]]
        for process, target in batch:
            try:
                _, stderr = process.communicate(timeout=_ESPEAK_TIMEOUT)
            except subprocess.TimeoutExpired:
                for other, _target in batch:
                    other.kill()
                    other.wait()
                raise RuntimeError(f"espeak-ng did not finish within {_ESPEAK_TIMEOUT:.0f} s") from None
            if process.returncode != 0 or not target.exists():
                raise RuntimeError(f"espeak-ng failed with exit code {process.returncode}: "
                                   f"{stderr.decode('utf-8', 'replace').strip()}")
            segments.append(read_pcm_wav(target))
    return segments


def _recursive(drive: np.ndarray, pole: float) -> np.ndarray:
    """``y[i] = pole * y[i-1] + drive[i]`` (``y[0] = drive[0]``) for 0 <= pole < 1, computed as a prefix
    scan: ``y += pole**k * y`` shifted by k for k = 1, 2, 4, ... until ``pole**k`` is below 1e-30 (the
    terms left out are smaller than float rounding of 16-bit audio). Only element-wise numpy operations
    in a fixed order, so the result is the same in every process and thread count (no BLAS), and it
    takes milliseconds where a per-sample Python loop takes seconds."""
    out = drive.astype(np.float64, copy=True)
    shift, factor = 1, pole
    while factor > 1e-30 and shift < out.shape[0]:
        out[shift:] += factor * out[:-shift]
        shift, factor = shift * 2, factor * factor
    return out


def band_limit(samples: np.ndarray, rate: int, low_hz: float = 300.0, high_hz: float = 3400.0) -> np.ndarray:
    """First-order (6 dB/octave) RC high-pass at ``low_hz`` then low-pass at ``high_hz`` of float samples.

    The same filters as pydub's ``high_pass_filter``/``low_pass_filter`` (RC = 1 / (2 pi f), the first
    output sample equal to the first input sample), vectorised with :func:`_recursive`.
    """
    if samples.shape[0] == 0:
        return samples.astype(np.float64)
    step = 1.0 / rate
    rc_high = 1.0 / (2 * math.pi * low_hz)
    alpha = rc_high / (rc_high + step)
    drive = np.empty(samples.shape[0], dtype=np.float64)
    drive[0] = samples[0]
    drive[1:] = alpha * np.diff(samples.astype(np.float64))
    high_passed = _recursive(drive, alpha)
    rc_low = 1.0 / (2 * math.pi * high_hz)
    beta = step / (rc_low + step)
    drive = beta * high_passed
    drive[0] = high_passed[0]
    return _recursive(drive, 1.0 - beta)


def telephone_band(audio: AudioSegment, seed: int, noise_rms: float = 40.0) -> AudioSegment:
    """Mono 8000 Hz 16-bit audio, band-limited to 300–3400 Hz, with deterministic Gaussian line noise.

    The audio is resampled to 8 kHz first (so the filters run on fewer samples), then filtered with
    :func:`band_limit`, then the noise from ``numpy.random.default_rng(seed)`` is added and samples are
    rounded and clipped to the int16 range.

    ``noise_rms`` is the noise's standard deviation in 16-bit sample units (40 ≈ −58 dBFS).
    """
    audio = audio.set_channels(1).set_sample_width(2).set_frame_rate(SAMPLE_RATE)
    samples = band_limit(np.frombuffer(audio.raw_data, dtype="<i2"), SAMPLE_RATE)
    noise = np.random.default_rng(seed).normal(0.0, noise_rms, samples.shape[0])
    mixed = np.clip(np.rint(samples + noise), -32768, 32767).astype("<i2")
    return AudioSegment(data=mixed.tobytes(), sample_width=2, frame_rate=SAMPLE_RATE, channels=1)


# --------------------------------------------------------------------------------------------------
# The steps of a service call around the customer's question
# --------------------------------------------------------------------------------------------------

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _slots(rng, fake, names, today: dt.date) -> dict[str, str]:
    """Per-call details for the step wordings: every step sentence of eight words or more names at least
    one of them, so no long sentence repeats from one recorded call to another."""
    first, last = names["customer"]
    born = birth_date(fake, today, minimum_age=21, maximum_age=84)
    return {"first": first, "last": last, "agent": names["agent"][0], "city": fake.city(),
            "company": fake.company().replace(",", ""), "street": fake.street_address(),
            "born": f"{born:%B} {born.day}, {born.year}", "digits": f"{rng.randrange(1000, 10000)}",
            "ending": f"{rng.randrange(10, 100)}", "weekday": rng.choice(_WEEKDAYS), "email": fake.free_email(),
            "postcode": fake.postcode(), "opened": str(rng.randrange(2009, 2024)),
            "relative": rng.choice(("sister", "brother", "mother", "father", "aunt", "cousin", "daughter", "son"))}


def _say(rng, wordings, slots) -> list[Turn]:
    """One of ``wordings`` (each a list of ``(role, text)`` or ``(role, text, wait)``: the turn after which
    the customer waits, :data:`~taugen.generators.corpus.genres.support_conversation.WAIT_SECONDS`) as turns,
    with the call's ``slots`` filled in."""
    return [Turn(line[0], line[1].format(**slots), wait=line[2] if len(line) > 2 else "")
            for line in rng.choice(wordings)]


_VERIFICATION = (
    [("agent", "To start with, {first}, can I take your full name and date of birth, please?"),
     ("customer", "Sure, it's {first} {last}, born {born}."),
     ("agent", "Thank you. And the first line of your address?"), ("customer", "{street}, {city}.")],
    [("agent", "I just need to ask a couple of security questions first, {first}. Could you give me "
               "{verification_item}?"),
     ("customer", "Yes, hang on, I have it here. It's {digits}."),
     ("agent", "Perfect. And can you confirm your date of birth for me?"), ("customer", "{born}.")],
    [("agent", "Can you confirm the postcode or zip code we have on file for you, {first}?"),
     ("customer", "It should be {postcode}, unless you still have my old address in {city}."),
     ("agent", "No, that matches. And the email address on the profile?"), ("customer", "It's {email}.")],
)
_LOOKUP = (
    [("agent", "Bear with me a moment, {first}, while the account loads; it's a little slow this {weekday}."),
     ("customer", "That's all right, take your time.", "lookup")],
    [("agent", "Okay, {first}, I can see the account here, opened back in {opened}. Is that the one?"),
     ("customer", "Yes, that's the main one. I've had it since I lived in {city}.")],
    [("agent", "I've got your profile up now, {first}. I can see two accounts; which one is this about?"),
     ("customer", "The everyday one, the one my pay from {company} goes into.")],
)
_STORY = (
    [("agent", "Can you tell me a little about what happened, {first}?"),
     ("customer", "So the background is that I was in {city} last week visiting my {relative}, and when I got "
                  "home I went through everything online and a couple of things didn't look the way I "
                  "expected.")],
    [("agent", "Is there anything new on your side that I should know about, {first}?"),
     ("customer", "Well, I've just started a new job at {company}, so my pay is coming in on a different day "
                  "now and I'm trying to get everything lined up around that.")],
    [("agent", "And is it your own account, {first}, or do you manage it together with someone?"),
     ("customer", "It's a joint one with my {relative}. They usually deal with all of this, but they're in "
                  "{city} at the moment, so I'm sorting it out myself and I'm not completely sure what I'm "
                  "looking at.")],
)
_HOLD = (
    [("agent", "Would you mind if I put you on a short hold, {first}, while I check something with my team "
               "leader?"), ("customer", "Go ahead.", "hold"),
     ("agent", "Thanks for holding, {first}. Sorry that took a little longer than I expected."),
     ("customer", "No worries.")],
    [("agent", "I'm going to place you on hold for a minute or two, {first}, so I can look at the notes on "
               "the account. Is that okay?"), ("customer", "Yes, that's fine.", "hold"),
     ("agent", "Thank you for waiting, {first}. I've read through the notes now."), ("customer", "Okay, great.")],
)
_CONTACT = (
    [("agent", "While I have you, {first}, is the mobile number ending in {ending} still the best way to "
               "reach you?"), ("customer", "Yes, that's still my number.")],
    [("agent", "Can I just check we have the right phone number for you, {first}? The one on file ends in "
               "{ending}."),
     ("customer", "Actually that's my old one, from when I was in {city}. I thought I'd updated it in the "
                  "app."),
     ("agent", "I can see the new one was added but not set as the main number, {first}. I've switched it "
               "over now."), ("customer", "Oh good, thanks.")],
    [("agent", "Would you like me to send you a text with a summary once we're done, {first}?"),
     ("customer", "Yes please, {agent}, that would help, I won't remember all of this.")],
)
_APP = (
    [("agent", "Do you use our app at all, {first}?"),
     ("customer", "I do. Is there a way I could have done this in the app, {agent}? I did look but I couldn't "
                  "find it."),
     ("agent", "Some of it, yes, {first}. If you open the menu and go to the account settings, most of what we "
               "talked about is there, although this part still needs a call."),
     ("customer", "Okay, I'll have a look next time.")],
    [("agent", "Did you manage to get into the app at all today, {first}?"),
     ("customer", "Not really, it logged me out twice on {weekday}, which is partly why I'm calling."),
     ("agent", "Sorry about that, {first}. If it keeps happening, updating the app and signing in again "
               "usually fixes it, and I can reset your session from here."),
     ("customer", "Let's try the update first.")],
)
_WORRY = (
    [("agent", "Is there anything else worrying you about the account, {first}?"),
     ("customer", "Well, is my account safe? My {relative} in {city} got a scam call and it made me nervous."),
     ("agent", "It's a good question to ask, {first}. We will never ask you for {never_asked_for} over the "
               "phone, and if anyone does, hang up and call {official_number}."),
     ("customer", "Good to know, thank you.")],
    [("agent", "Was there anything else on your mind, {first}?"),
     ("customer", "Yes, one more thing. I got an email on {weekday} that looked like it came from you, asking "
                  "me to log in. Was that real?"),
     ("agent", "If you're not sure, {first}, don't click the link. Forward it to our fraud team and log in "
               "through the app instead; I can't see any emails sent to you from us this week."),
     ("customer", "Right, I'll delete it then.")],
)
_EXPLAIN = (
    [("agent", "Let me explain how this normally works, {first}, because it isn't obvious from the statement. "
               "Anything still pending shows in grey at the top, and it moves into the main list once it has "
               "fully gone through, which is why the balance can look different from one day to the next."),
     ("customer", "Ah, that explains a lot, {agent}. I thought something had gone missing.")],
    [("agent", "The way it works on our side, {first}, is that the request goes to the team that looks after "
               "these cases, they check it against the account records, and you hear back from them "
               "directly, usually by secure message rather than by post."),
     ("customer", "Okay, and do I need to do anything in the meantime?"),
     ("agent", "No, nothing at all. If they need anything else from you, they'll ask."),
     ("customer", "Fine, thanks.")],
)
_SMALL_TALK = (
    [("agent", "Sorry, it's just thinking about it. Are you having a good week otherwise, {first}?"),
     ("customer", "Not bad, thanks, {agent}. Busy. We've had builders in on {street} all week, so you might "
                  "hear drilling in the background."),
     ("agent", "I can't hear a thing, don't worry."), ("customer", "Good.")],
    [("agent", "While that loads, {first}, are you calling from home today?"),
     ("customer", "No, I'm on my lunch break at {company} in {city}, so I haven't got long."),
     ("agent", "We'll be done well within that."), ("customer", "Great.")],
)
_LETTER = (
    [("agent", "Would you prefer a letter as well, {first}, or is the secure message enough?"),
     ("customer", "The message is fine. Post takes a week to reach {city} anyway.")],
    [("agent", "I can also put this in writing for you, {first}. Would email or post suit you better?"),
     ("customer", "Email, please, to {email}.")],
)
_RECAP = (
    [("agent", "So, just to recap, {first}: we've gone through your question, I've added a note to the "
               "account so anyone you speak to next can see what we discussed, and you'll get a text "
               "confirming it."), ("customer", "That's really helpful, thank you, {agent}.")],
    [("agent", "Let me read back what I've noted on the account, {first}, so you know what the next person "
               "will see: that you called on {weekday}, what you asked about, and what I explained."),
     ("customer", "That sounds right.")],
)
_REFERENCE = (
    [("agent", "I'll give you a reference for today's call, {first}, in case you need to ring back. Have you "
               "got a pen?"), ("customer", "Hold on... okay, go ahead."),
     ("agent", "It's {digits} {ending}."), ("customer", "{digits} {ending}. Got it.")],
    [("agent", "Your reference for this call is {digits} {ending}, {first}; you can quote it if you call "
               "again."), ("customer", "Thanks, I've written it down.")],
)
_SURVEY = (
    [("agent", "You might get a short survey by text after this call, {first}; it's only a couple of "
               "questions if you have a minute."), ("customer", "Sure, I'll fill it in.")],
    [("agent", "We sometimes send a quick feedback question after a call, {first}. It's completely optional."),
     ("customer", "That's fine, {agent}.")],
)


def _step(wordings):
    def step(rng, slots):
        return _say(rng, wordings, slots)
    return step


_verification, _lookup, _story = _step(_VERIFICATION), _step(_LOOKUP), _step(_STORY)
_hold, _app, _worry, _contact = _step(_HOLD), _step(_APP), _step(_WORRY), _step(_CONTACT)
_explain, _small_talk, _letter = _step(_EXPLAIN), _step(_SMALL_TALK), _step(_LETTER)
_recap, _reference, _survey = _step(_RECAP), _step(_REFERENCE), _step(_SURVEY)


_OVERSHOOT = 30
"""Words a call may run past its planned length when a step is added."""
_OPENING_STEPS = (_verification, _lookup, _story)
_MIDDLE_STEPS = (_hold, _app, _worry, _contact, _explain, _small_talk, _letter)
_CLOSING_STEPS = (_recap, _reference, _survey)


def extend_call(conversation: Conversation, plan: ArtifactPlan, context: RenderContext, target_words: int) -> None:
    """Grow a phone conversation towards ``target_words`` with the ordinary steps of a service call.

    Real calls spend most of their minutes around the question: security checks, the account loading,
    the customer's background, a hold, contact details, a word about scams or the app, a recap, a call
    reference and a survey. Each step is an exchange (agent first, customer last) chosen from a few
    wordings with the plan's seeded generator and faker. Steps are taken in call order (identity and
    background go after the customer's reply to the greeting, the rest just before the goodbye) until the
    conversation has about ``target_words`` words or :data:`MAX_TURNS` turns. Carriers and fillers get
    the same steps, and no step goes between a rendition and the turns around it. Turns of the same
    speaker that end up next to each other are merged (one speaker's turn on a phone line). The
    conversation's turns are replaced in place; offsets are set later from the audio.
    """
    rng = plan.rng("call steps")
    fake = plan.faker(context.config.locale, "call steps")
    slots = _slots(rng, fake, {"customer": conversation.customer_name, "agent": conversation.agent_name},
                   context.config.now.date())
    slots.update(context.vocabulary.words("support_transcript").call_security_terms())  # type: ignore[attr-defined]
    turns = conversation.turns
    words = sum(len(turn.text.split()) for turn in turns)
    verified = any(turn.text.startswith(question) for turn in turns for question, _answer in VERIFY)
    # identity first (unless the conversation already checked it), then the account, then the background
    opening_steps = [step for step in _OPENING_STEPS if not (verified and step is _verification)
                     and (step is not _lookup or rng.random() < 0.7)]
    middle = list(_MIDDLE_STEPS)
    rng.shuffle(middle)
    blocks: dict[str, list[Turn]] = {"open": [], "late": []}
    for step, where in [(step, "open") for step in opening_steps] + [(step, "late") for step in middle + list(_CLOSING_STEPS)]:
        if words >= target_words:
            break
        exchange = step(rng, slots)
        added = sum(len(turn.text.split()) for turn in exchange)
        if len(turns) + len(blocks["open"]) + len(blocks["late"]) + len(exchange) + 2 > MAX_TURNS:
            break
        if words + added > target_words + _OVERSHOOT:
            continue  # a shorter step later may still fit
        blocks[where] += exchange
        words += added
    anything = {" ".join(text.split()) for text in AGENT_ANYTHING}
    closing_at = len(turns) - 3 if len(turns) >= 3 and turns[-3].text in anything else len(turns) - 2
    after_greeting = next((i + 1 for i, turn in enumerate(turns[:3]) if turn.role == "customer"), 1)
    late = _bridged(blocks["late"], turns[closing_at - 1] if closing_at > 0 else None,
                    turns[closing_at] if closing_at < len(turns) else None, rng)
    opening = _bridged(blocks["open"], turns[after_greeting - 1], turns[after_greeting] if after_greeting < len(turns)
                       else None, rng)
    turns[closing_at:closing_at] = late
    turns[after_greeting:after_greeting] = opening
    conversation.turns[:] = merge_same_speaker(turns)


_BRIDGE_IN = ("Okay.", "Right, okay.", "Okay, that makes sense.", "I see.")
_BRIDGE_OUT = ("Is there anything else I can help you with today?", "Was there anything else today?",
               "Anything else I can do for you?")


def _bridged(block: list[Turn], before: Turn | None, after: Turn | None, rng) -> list[Turn]:
    """``block`` (agent first, customer last) with a short customer acknowledgement in front when the
    turn before it is the agent's, and an agent question after it when the turn after is the customer's."""
    if not block:
        return []
    out = list(block)
    if before is not None and before.role == out[0].role:
        out.insert(0, Turn("customer", rng.choice(_BRIDGE_IN)))
    if after is not None and after.role == out[-1].role:
        out.append(Turn("agent", rng.choice(_BRIDGE_OUT)))
    return out


@register_genre
class CallRecordingGenre(Genre):
    """A recorded phone call delivered as a telephone-quality ``.wav`` (8000 Hz, mono, 16-bit PCM).

    ``author_text`` is the call transcript (phone shape: ``Turn N — Speaker: text``) with a header
    naming the recording, case, date, start time and duration. ``metadata`` adds to the conversation
    metadata (speakers, turns, rendition turns) the ``voices`` used and ``audio`` facts: sample rate,
    channels, duration in seconds and each turn's ``[start_ms, end_ms]`` span in the recording.
    ``timestamps`` are the call start and end.
    """

    name = "call_recording"
    reference_kinds = MappingProxyType({"": "case_file"})  # τ^τ's banking evidence rooms file a call with its case
    affinity = (("money", "", 1), ("cap", "", 1), ("duration", "", 1))
    voiced = True
    label = "Call recording"
    max_facts = 2
    binary = True
    spread_words = (MIN_WORDS, MAX_WORDS)
    medium = "audio"
    substitute = ("support_transcript", "phone")

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """A call lasts 6 to 28 minutes."""
        return dt.timedelta(minutes=rng.randint(6, 28))

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write and synthesise the call. Deterministic: the same plan gives the same WAV bytes.

        Raises:
            RuntimeError: espeak-ng is not installed or fails.
            ValueError: the plan window is inverted.
        """
        espeak_executable()
        rng = plan.rng("voices")
        tz = local_zone(context)
        agent_voice = rng.choice(AGENT_VOICES)
        customer_voice = rng.choice([v for v in CUSTOMER_VOICES if v[:2] != agent_voice[:2]])
        # Calls run from a quick question to several minutes of back-and-forth; the planner spreads the
        # lengths over the calls (``length_words``), and the call's own steps fill it up to its length.
        words = plan.length_words or plan.rng("call length").randint(MIN_WORDS, MAX_WORDS)
        conversation = build_conversation(plan, context, "phone", brief=words < 110, max_turns=MAX_TURNS,
                                          genders=(agent_voice[2], customer_voice[2]), max_words=words)
        extend_call(conversation, plan, context, words)
        voices = {
            "agent": (f"{agent_voice[0]}+{agent_voice[1]}", rng.randint(160, 180), rng.randint(40, 60)),
            "customer": (f"{customer_voice[0]}+{customer_voice[1]}", rng.randint(150, 185), rng.randint(35, 65)),
        }
        for attempt in range(3):  # a long call is re-spoken faster so that its speech stays under MAX_SECONDS
            audio, spans, waits, data = self._record(plan, conversation, voices)
            speech = len(audio) - sum(end - start for start, end in waits)
            if speech <= MAX_SECONDS * 1000 or attempt == 2:
                break
            factor = min(1.3, speech / (MAX_SECONDS * 1000 - 3000))
            voices = {role: (v[0], min(230, int(v[1] * factor) + 1), v[2]) for role, v in voices.items()}

        conversation.duration = len(audio) / 1000
        fit_to_window(conversation, plan, tz)
        recording_ref = f"REC-{conversation.start:%Y%m%d}-{plan.rng('recording').randrange(100_000, 999_999)}"
        transcript = render_transcript(conversation, context.templates, "call_recording/transcript.txt.j2", tz,
                                       recording_ref=recording_ref)
        metadata = conversation_metadata(conversation, plan, tz)
        metadata.update({
            "recording_ref": recording_ref,
            "voices": {role: {"voice": v[0], "wpm": v[1], "pitch": v[2]} for role, v in voices.items()},
            "audio": {"sample_rate": SAMPLE_RATE, "channels": 1, "sample_width": 2,
                      "duration_s": round(len(audio) / 1000, 3), "turn_spans_ms": spans, "wait_spans_ms": waits},
        })
        return RenderedArtifact(
            plan=plan, files=[RenderedFile(SUFFIX, data)], author_text=transcript, renditions=list(plan.renditions),
            timestamps=[in_plan_frame(conversation.start, plan, tz), in_plan_frame(conversation.end, plan, tz)],
            metadata=metadata,
        )

    def _record(self, plan: ArtifactPlan, conversation: Conversation,
                voices: dict[str, tuple[str, int, int]]) -> tuple[AudioSegment, list[list[int]], list[list[int]], bytes]:
        """Speak, assemble, band-limit and export the call; sets each turn's offsets (seconds).

        Returns ``(audio, spans, waits, wav_bytes)`` where ``spans`` are the turns' ``[start_ms, end_ms]``
        and ``waits`` the ``[start_ms, end_ms]`` of each quiet stretch after a turn that made the customer
        wait (:func:`~taugen.generators.corpus.genres.support_conversation.wait_seconds`: the line carries
        only its noise while the agent reads or the customer is on hold).
        """
        rng = plan.rng(f"assembly:{voices['agent'][1]}:{voices['customer'][1]}")
        jobs = [(turn.text, *voices[turn.role]) for turn in conversation.turns]
        with tempfile.TemporaryDirectory(prefix="taugen-call-") as tmp:
            segments = synthesise(jobs, Path(tmp))
        audio = AudioSegment.silent(duration=rng.randint(250, 600), frame_rate=SAMPLE_RATE)
        gains = {"agent": -rng.uniform(0.0, 2.0), "customer": -rng.uniform(2.0, 5.0)}
        spans: list[list[int]] = []
        waits: list[list[int]] = []
        for index, (turn, segment) in enumerate(zip(conversation.turns, segments, strict=True)):
            segment = segment.set_channels(1).set_sample_width(2).set_frame_rate(SAMPLE_RATE) + gains[turn.role]
            begin = len(audio)
            audio += segment
            spans.append([begin, len(audio)])
            turn.offset, turn.end_offset = begin / 1000, len(audio) / 1000
            last = index + 1 == len(segments)
            waited = 0 if last else round(wait_seconds(rng, turn.wait, "phone") * 1000)
            if waited:
                waits.append([len(audio), len(audio) + waited])
            pause = waited or (rng.randint(300, 800) if last else rng.randint(200, 700))
            audio += AudioSegment.silent(duration=pause, frame_rate=SAMPLE_RATE)
        audio = telephone_band(audio, stable_seed(plan.seed, plan.artifact_id, "line-noise"))
        buffer = io.BytesIO()
        audio.export(buffer, format="wav")
        return audio, spans, waits, buffer.getvalue()

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Return ``author_text``, the call transcript.

        Audio has no text reader, so the transcript written before synthesis is kept author-side and
        stands in for what a listener hears (every turn of it is spoken in the WAV).
        """
        return author_text

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """The chain :func:`~taugen.generators.corpus.genres.support_transcript.transcript_dates` reads from
        the transcript that stands in for the audio (:meth:`extract_text`)."""
        return transcript_dates(self.extract_text(files, author_text), zone)

    def customer_opening(self, text: str) -> str | None:
        """The caller's first turn (:func:`~taugen.generators.corpus.genres.support_transcript.customer_opening`)."""
        return customer_opening(text)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure checks of the WAV and its transcript.

        Rules: exactly one ``.wav``; it opens with the stdlib ``wave`` module (RIFF/WAVE, PCM); 1 channel,
        8000 Hz, 16-bit; duration over 1 s; the transcript's turns are numbered 1..N with speakers; every
        wait the metadata names (``audio.wait_spans_ms``: a hold, the agent reading) lies inside the
        recording and is quiet (RMS at most :data:`QUIET_RMS`: line noise, no speech); and the speaking
        rate, transcript words per minute of the audio outside those waits, lies in 100–260 wpm. Speech
        over 1.25 x :data:`MAX_SECONDS` is a warning.
        """
        subject = artifact.plan.artifact_id
        wavs = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(wavs) != 1:
            return [error("structure", "file_count", subject, f"expected one .wav file, found {len(wavs)}")]
        try:
            with wave.open(io.BytesIO(wavs[0].data), "rb") as reader:
                channels, rate = reader.getnchannels(), reader.getframerate()
                width, frames = reader.getsampwidth(), reader.getnframes()
        except (wave.Error, EOFError) as exc:
            return [error("structure", "unreadable_wav", subject, f"the recording is not a readable WAV file: {exc}")]
        findings: list[Finding] = []
        if channels != 1:
            findings.append(error("structure", "wav_channels", subject,
                                  f"recording has {channels} channels, expected 1"))
        if rate != SAMPLE_RATE:
            findings.append(error("structure", "wav_rate", subject, f"recording is sampled at {rate} Hz, "
                                  f"expected {SAMPLE_RATE} Hz", rule="telephone audio is 8 kHz"))
        if width != 2:
            findings.append(error("structure", "wav_width", subject, f"samples are {width * 8}-bit, expected 16-bit"))
        duration = frames / rate if rate else 0.0
        waits = artifact.metadata.get("audio", {}).get("wait_spans_ms") or []
        findings += _check_waits(wavs[0].data, waits, duration, subject) if width == 2 and rate else []
        speech = duration - sum(end - start for start, end in waits) / 1000
        if duration <= 1.0:
            findings.append(error("structure", "wav_too_short", subject, f"recording lasts {duration:.2f} s"))
        elif speech > MAX_SECONDS * 1.25:
            findings.append(warning("structure", "wav_too_long", subject,
                                    f"the call's speech lasts {speech:.1f} s; calls should speak for under "
                                    f"{MAX_SECONDS:.0f} s"))
        findings += check_turns(artifact.author_text, subject, artifact.metadata.get("speakers"))
        words = sum(len(turn.text.split()) for turn in parse_turns(artifact.author_text)[0])
        if duration > 1.0 and speech > 0:
            rate_wpm = words / (speech / 60)
            if not WPM_RANGE[0] <= rate_wpm <= WPM_RANGE[1]:
                findings.append(error("structure", "implausible_speech_rate", subject,
                                      f"{words} transcript words in {speech:.1f} s of audio outside its waits is "
                                      f"{rate_wpm:.0f} words per minute, outside {WPM_RANGE[0]:.0f}–{WPM_RANGE[1]:.0f}",
                                      rule="the audio must be a reading of the transcript"))
        expected = artifact.metadata.get("audio", {}).get("duration_s")
        if expected is not None and abs(expected - duration) > 0.05:
            findings.append(error("structure", "duration_mismatch", subject,
                                  f"metadata says {expected} s but the WAV lasts {duration:.3f} s"))
        return findings


def _check_waits(wav: bytes, waits: list[list[int]], duration: float, subject: str) -> list[Finding]:
    """Findings for waits (``[start_ms, end_ms]`` each) that are not quiet stretches inside the 16-bit mono
    recording ``wav`` lasting ``duration`` seconds (see :meth:`CallRecordingGenre.validate`)."""
    if not waits:  # most calls: nothing to decode
        return []
    with wave.open(io.BytesIO(wav), "rb") as reader:
        rate = reader.getframerate()
        samples = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2").astype(np.float64)
    findings: list[Finding] = []
    for start, end in waits:
        if not 0 <= start < end <= duration * 1000 + 1:
            findings.append(error("structure", "wait_outside_recording", subject,
                                  f"a wait from {start} to {end} ms is not inside the {duration:.1f} s recording"))
            continue
        stretch = samples[start * rate // 1000:end * rate // 1000]
        loudness = float(np.sqrt(np.mean(stretch ** 2))) if len(stretch) else 0.0
        if loudness > QUIET_RMS:
            findings.append(error("structure", "wait_not_quiet", subject,
                                  f"the wait from {start / 1000:.1f} to {end / 1000:.1f} s has RMS {loudness:.0f}, "
                                  f"louder than line noise ({QUIET_RMS:.0f})",
                                  rule="the customer waits in silence: nobody speaks during a hold"))
    return findings


__all__ = ["CallRecordingGenre", "Conversation", "espeak_executable", "synthesise", "telephone_band"]
