#!/usr/bin/env python3
"""Regenerates the timekeeper's voice clips (C3.2 calls) with espeak-ng.

    python3 assets/voice/make.py        # needs espeak-ng (Debian: apt install espeak-ng)

Each clip is a WAV file, mono, 11025 Hz, 8-bit, named after what the service asks for:
`1` … `10`, `20`, `30`, `40`, `50`, `55`, `58`, `timeup`, `minutes-left-N` and
`periods-left-N` (N = 1 … 10). English in `en/`, Mandarin in `zh/`.
"""
import audioop  # noqa: deprecated in 3.11, still present; only for this offline script
import os
import subprocess
import tempfile
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
EN_NUM = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
          8: "eight", 9: "nine", 10: "ten", 20: "twenty", 30: "thirty", 40: "forty",
          50: "fifty", 55: "fifty five", 58: "fifty eight"}
ZH_NUM = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九",
          10: "十", 20: "二十", 30: "三十", 40: "四十", 50: "五十", 55: "五十五", 58: "五十八"}


def clips(lang):
    num = EN_NUM if lang == "en" else ZH_NUM
    out = {str(n): text for n, text in num.items()}
    if lang == "en":
        out["timeup"] = "time is up"
        for n in range(1, 11):
            out[f"minutes-left-{n}"] = f"{EN_NUM[n]} minute{'s' if n > 1 else ''} left"
            out[f"periods-left-{n}"] = f"{EN_NUM[n]} period{'s' if n > 1 else ''} left"
    else:
        out["timeup"] = "时间到"
        for n in range(1, 11):
            out[f"minutes-left-{n}"] = f"还剩{ZH_NUM[n]}分钟"
            out[f"periods-left-{n}"] = f"还剩{ZH_NUM[n]}次读秒"
    return out


def write(lang, name, text):
    voice = "en" if lang == "en" else "cmn"
    with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
        subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w", tmp.name, text], check=True)
        with wave.open(tmp.name) as w:
            rate, width, frames = w.getframerate(), w.getsampwidth(), w.readframes(w.getnframes())
    frames, _ = audioop.ratecv(frames, width, 1, rate, 11025, None)
    frames = audioop.bias(audioop.lin2lin(frames, width, 1), 1, 128)
    path = os.path.join(HERE, lang, f"{name}.wav")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(11025)
        w.writeframes(frames)


for lang in ("en", "zh"):
    os.makedirs(os.path.join(HERE, lang), exist_ok=True)
    for name, text in clips(lang).items():
        write(lang, name, text)
