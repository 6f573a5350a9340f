"""The call-recording genre: a short recorded phone call between a bank agent and a customer.

The call is written as a phone transcript by the ``support_transcript`` genre's conversation builder
(:func:`~taugen.generators.corpus.genres.support_transcript.build_conversation`, brief mode, at most
12 turns) and synthesised to speech:

1. each turn is spoken by ``espeak-ng`` (one WAV per turn, written to a temporary directory) with two
   distinct voices, the agent's (an ``en-us`` variant) and the customer's (an ``en-gb``/other variant),
   with speaking rate (words per minute) and pitch drawn from the plan's random generator;
2. the turns are concatenated with pydub, separated by short pauses (200–700 ms);
3. the result is converted to telephone quality: mono, 8000 Hz, 16-bit PCM, band-limited to roughly
   300–3400 Hz (pydub ``high_pass_filter(300)`` then ``low_pass_filter(3400)``; the ITU-T G.712
   voice band) with low-level Gaussian line noise from ``numpy.random.default_rng(seed)`` mixed in;
4. it is exported as a RIFF/WAVE file (pydub writes WAV with the stdlib ``wave`` module, so no
   encoder version leaks into the bytes).

Everything is deterministic: espeak-ng output depends only on its input and version; noise, voices,
rates and pauses come from the plan's seed. The delivered file is the ``.wav``; the transcript is
kept author-side (``RenderedArtifact.author_text``) because audio has no text reader.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np
from pydub import AudioSegment

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
    stable_seed,
)
from taugen.generators.corpus.genres.support_transcript import (
    Conversation,
    build_conversation,
    check_turns,
    conversation_metadata,
    fit_to_window,
    in_plan_frame,
    local_zone,
    parse_turns,
    render_transcript,
)
from taugen.validators.findings import Finding, error, warning

SUFFIX = ".wav"
SAMPLE_RATE = 8000
"""Telephone sample rate in Hz (ITU-T G.711 narrowband)."""
MAX_TURNS = 30
MIN_WORDS = 30
MAX_WORDS = 400
"""Word budget of a call is drawn from [MIN_WORDS, MAX_WORDS]: at espeak's pace, under three minutes."""
MAX_SECONDS = 180.0
WPM_RANGE = (100.0, 260.0)
"""Plausible words per minute of the whole recording (speech plus pauses)."""

# (espeak-ng language, variant, gender of the name given to the speaker)
_AGENT_VOICES = (
    ("en-us", "f3", "female"), ("en-us", "f2", "female"), ("en-us", "f4", "female"),
    ("en-us", "m3", "male"), ("en-us", "m2", "male"),
)
_CUSTOMER_VOICES = (
    ("en-gb", "m3", "male"), ("en-gb", "f2", "female"), ("en-gb-x-rp", "m4", "male"),
    ("en-gb", "f5", "female"), ("en-029", "m2", "male"), ("en-gb-scotland", "m1", "male"),
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


def synthesise(jobs: list[tuple[str, str, int, int]], workdir: Path) -> list[AudioSegment]:
    """Speak each ``(text, voice, words_per_minute, pitch)`` job with espeak-ng; one segment per job.

    The jobs run as parallel espeak-ng processes writing ``turnNN.wav`` files (22050 Hz mono 16-bit)
    into ``workdir``; text is passed in a file (``-f``) so no text is parsed as an option.

    Raises:
        RuntimeError: espeak-ng is missing or fails (its stderr is quoted).
    """
    executable = espeak_executable()
    running = []
    for index, (text, voice, speed, pitch) in enumerate(jobs):
        source = workdir / f"turn{index:02d}.txt"
        target = workdir / f"turn{index:02d}.wav"
        source.write_text(speakable(text), encoding="utf-8")
        command = [executable, "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(target), "-f", str(source)]
        running.append((subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), target))
    segments = []
    for process, target in running:
        _, stderr = process.communicate(timeout=60)
        if process.returncode != 0 or not target.exists():
            raise RuntimeError(f"espeak-ng failed with exit code {process.returncode}: "
                               f"{stderr.decode('utf-8', 'replace').strip()}")
        segments.append(AudioSegment.from_wav(str(target)))
    return segments


def telephone_band(audio: AudioSegment, seed: int, noise_rms: float = 40.0) -> AudioSegment:
    """Mono 8000 Hz 16-bit audio, band-limited to 300–3400 Hz, with deterministic Gaussian line noise.

    The audio is resampled to 8 kHz first (so the filters run on fewer samples), then filtered, then the
    noise from ``numpy.random.default_rng(seed)`` is added and samples are clipped to the int16 range.

    ``noise_rms`` is the noise's standard deviation in 16-bit sample units (40 ≈ −58 dBFS).
    """
    audio = audio.set_channels(1).set_sample_width(2).set_frame_rate(SAMPLE_RATE)
    audio = audio.high_pass_filter(300).low_pass_filter(3400)  # first-order (6 dB/octave) pydub filters
    samples = np.frombuffer(audio.raw_data, dtype="<i2").astype(np.float64)
    noise = np.random.default_rng(seed).normal(0.0, noise_rms, samples.shape[0])
    mixed = np.clip(np.rint(samples + noise), -32768, 32767).astype("<i2")
    return AudioSegment(data=mixed.tobytes(), sample_width=2, frame_rate=SAMPLE_RATE, channels=1)


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
    affinity = (("money", "", 1), ("cap", "", 1), ("duration", "", 1))
    voiced = True
    label = "Call recording"
    max_facts = 2
    binary = True

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write and synthesise the call. Deterministic: the same plan gives the same WAV bytes.

        Raises:
            RuntimeError: espeak-ng is not installed or fails.
            ValueError: the plan window is inverted.
        """
        espeak_executable()
        rng = plan.rng("voices")
        tz = local_zone(context)
        agent_voice = rng.choice(_AGENT_VOICES)
        customer_voice = rng.choice([v for v in _CUSTOMER_VOICES if v[:2] != agent_voice[:2]])
        # Calls run from a quick question to a few minutes of back-and-forth (lengths spread like real calls).
        words = plan.rng("call length").randint(MIN_WORDS, MAX_WORDS)
        conversation = build_conversation(plan, context, "phone", brief=words < 110, max_turns=MAX_TURNS,
                                          genders=(agent_voice[2], customer_voice[2]), max_words=words)
        voices = {
            "agent": (f"{agent_voice[0]}+{agent_voice[1]}", rng.randint(160, 180), rng.randint(40, 60)),
            "customer": (f"{customer_voice[0]}+{customer_voice[1]}", rng.randint(150, 185), rng.randint(35, 65)),
        }
        for attempt in range(3):  # a long call is re-spoken faster so that it stays under a minute
            audio, spans, data = self._record(plan, conversation, voices)
            if len(audio) <= MAX_SECONDS * 1000 or attempt == 2:
                break
            factor = min(1.3, len(audio) / (MAX_SECONDS * 1000 - 3000))
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
                      "duration_s": round(len(audio) / 1000, 3), "turn_spans_ms": spans},
        })
        return RenderedArtifact(
            plan=plan, files=[RenderedFile(SUFFIX, data)], author_text=transcript, renditions=list(plan.renditions),
            timestamps=[in_plan_frame(conversation.start, plan, tz), in_plan_frame(conversation.end, plan, tz)],
            metadata=metadata,
        )

    def _record(self, plan: ArtifactPlan, conversation: Conversation,
                voices: dict[str, tuple[str, int, int]]) -> tuple[AudioSegment, list[list[int]], bytes]:
        """Speak, assemble, band-limit and export the call; sets each turn's offsets (seconds).

        Returns ``(audio, spans, wav_bytes)`` where ``spans`` are the turns' ``[start_ms, end_ms]``.
        """
        rng = plan.rng(f"assembly:{voices['agent'][1]}:{voices['customer'][1]}")
        jobs = [(turn.text, *voices[turn.role]) for turn in conversation.turns]
        with tempfile.TemporaryDirectory(prefix="taugen-call-") as tmp:
            segments = synthesise(jobs, Path(tmp))
        audio = AudioSegment.silent(duration=rng.randint(250, 600), frame_rate=SAMPLE_RATE)
        gains = {"agent": -rng.uniform(0.0, 2.0), "customer": -rng.uniform(2.0, 5.0)}
        spans: list[list[int]] = []
        for index, (turn, segment) in enumerate(zip(conversation.turns, segments, strict=True)):
            segment = segment.set_channels(1).set_sample_width(2).set_frame_rate(SAMPLE_RATE) + gains[turn.role]
            begin = len(audio)
            audio += segment
            spans.append([begin, len(audio)])
            turn.offset, turn.end_offset = begin / 1000, len(audio) / 1000
            pause = rng.randint(200, 700) if index + 1 < len(segments) else rng.randint(300, 800)
            audio += AudioSegment.silent(duration=pause, frame_rate=SAMPLE_RATE)
        audio = telephone_band(audio, stable_seed(plan.seed, plan.artifact_id, "line-noise"))
        buffer = io.BytesIO()
        audio.export(buffer, format="wav")
        return audio, spans, buffer.getvalue()

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Return ``author_text``, the call transcript.

        Audio has no text reader, so the transcript written before synthesis is kept author-side and
        stands in for what a listener hears (every turn of it is spoken in the WAV).
        """
        return author_text

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure checks of the WAV and its transcript.

        Rules: exactly one ``.wav``; it opens with the stdlib ``wave`` module (RIFF/WAVE, PCM); 1 channel,
        8000 Hz, 16-bit; duration over 1 s; the transcript's turns are numbered 1..N with speakers; and
        the speaking rate, transcript words per minute of audio, lies in 100–260 wpm. A recording over
        a minute is a warning (calls are meant to stay short).
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
        if duration <= 1.0:
            findings.append(error("structure", "wav_too_short", subject, f"recording lasts {duration:.2f} s"))
        elif duration > MAX_SECONDS * 1.25:
            findings.append(warning("structure", "wav_too_long", subject,
                                    f"recording lasts {duration:.1f} s; calls should stay under {MAX_SECONDS:.0f} s"))
        findings += check_turns(artifact.author_text, subject, artifact.metadata.get("speakers"))
        words = sum(len(turn.text.split()) for turn in parse_turns(artifact.author_text)[0])
        if duration > 1.0:
            rate_wpm = words / (duration / 60)
            if not WPM_RANGE[0] <= rate_wpm <= WPM_RANGE[1]:
                findings.append(error("structure", "implausible_speech_rate", subject,
                                      f"{words} transcript words in {duration:.1f} s of audio is {rate_wpm:.0f} words "
                                      f"per minute, outside {WPM_RANGE[0]:.0f}–{WPM_RANGE[1]:.0f}",
                                      rule="the audio must be a reading of the transcript"))
        expected = artifact.metadata.get("audio", {}).get("duration_s")
        if expected is not None and abs(expected - duration) > 0.05:
            findings.append(error("structure", "duration_mismatch", subject,
                                  f"metadata says {expected} s but the WAV lasts {duration:.3f} s"))
        return findings


__all__ = ["CallRecordingGenre", "Conversation", "espeak_executable", "synthesise", "telephone_band"]
