"""Character encodings of SGF files: honour ``CA``, otherwise guess.

An SGF file names its character set in the root property ``CA``.  Many files in
the wild (Chinese, Korean and Japanese servers) have no ``CA`` and are not
UTF-8; for those :func:`decode_sgf_bytes` tries GB18030 (a superset of GB2312 and
GBK), EUC-KR (then its superset CP949), Shift-JIS (then its superset CP932) and
finally ISO-8859-1 (the FF[4] default), and keeps the decoding whose non-ASCII
characters look most like real text.

Two common mistakes are forgiven: a file saved as UTF-16 with its byte order mark (Windows
Notepad's "Unicode") is read as UTF-16, and a file whose bytes are UTF-8 with non-ASCII text but
whose CA names a single-byte charset (``CA[ISO-8859-1]``, which some programs write whatever
they save) is read as UTF-8, which real Latin-1 text with accents almost never is (sgfmill and
KaTrain decode with the CA named, and show such a file garbled).

The files are decoded *before* the SGF grammar is applied because in GBK and
Shift-JIS the second byte of a character may be ``\\`` or ``]``, which would
otherwise be taken for an escape or the end of a property value.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from functools import lru_cache

# Decodings to try when CA is missing and the bytes are not UTF-8, in order of
# preference on a tie: (python codec, superset codec tried when the codec fails).
FALLBACK_CODECS = (("gb18030", None), ("euc_kr", "cp949"), ("shift_jis", "cp932"), ("iso8859-1", None))

# How to decode a declared CA codec: (codec, superset tried when it fails).  GB2312
# and GBK files routinely contain characters of their superset GB18030.
_CA_CODECS = {
    "gb2312": ("gb18030", None),
    "gbk": ("gb18030", None),
    "euc_kr": ("euc_kr", "cp949"),
    "shift_jis": ("shift_jis", "cp932"),
}

# The byte order marks of the Unicode encodings other than UTF-8: UTF-32's first, since its
# little-endian mark starts with UTF-16's.
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# The canonical names of the single-byte charsets that a CA may name for bytes that are UTF-8:
# ISO-8859-x, Windows-125x, KOI8 and the Mac's.
_SINGLE_BYTE_PREFIXES = ("iso8859-", "cp125", "koi8", "mac-")

# One property of the root node, enough to find CA without decoding anything.
_ROOT_TOKEN = re.compile(rb"\s*(?:\[((?:[^\\\]]|\\.)*)\]|([A-Za-z]+)|([;()]))", re.DOTALL)
_GAME_START = re.compile(rb"\(\s*;")

# The Hangul syllables of everyday Korean text and names.  Chinese text decoded
# as EUC-KR gives syllables spread evenly over all 2350 of KS X 1001, most of
# them rare; this set is what tells the two apart.
_COMMON_HANGUL = frozenset(
    "가각간갈감갑강개거걸검게겠격결겨계고곡공과관광교구국군권귀규균그극근글금급기길김까깨께꼭꾸끝"
    "나낙난날남내냐너넘네녀년념노녹놓누눈느는늘니님다단달담답당대덕더던데도독돌동되된될두둑둘뒤드득든들듯등디"
    "따때떤또뜻라락란람래략량러런럼렇레려력련렵령례로록론료룡루류률르른를름리린림립"
    "마막만많말맞매맹머먹면명모목못무묵문물미민밀바박반받발밤방배백버번벌범법변별병보복본봉부북분불비빈빠"
    "사산살삼상새색생서석선설섭성세소속손솔송수숙순술쉬스슬습승시식신실심싸써씨"
    "아악안않알압앞애야약양어억언얻업없었에엄여역연열엽염영예오옥온올와완왕왜외요욕용우욱운울움웅원월위유육윤율으은을음응의이익인일읽임입있"
    "자작잘잡장재저적전점접정제조족존종좋주죽준줄중즈즉지직진질집짓차착찬찰참창찾채책처천철첫청체초최추축춘출충취치칙친"
    "칸커컴케코크큰키타탁탈태택터테토통투트특파판팔패펴편평포표품프피필하학한할함합항해했행향허헌험혁현형혜호혹홍화확환활황회효후훈훨휘휴흐흑흔흥희힘"
)


def _codec_name(label: str) -> str | None:
    """Return Python's canonical codec name for a CA label, or None if unknown."""
    try:
        return codecs.lookup(label.strip()).name
    except LookupError:
        return None


def root_values(data: bytes) -> Iterator[tuple[str, bytes]]:
    """Yield (identifier, raw value) for each property value of the first game's root node, in order,
    without decoding anything: the identifier's upper-case letters (FF[3]'s lower-case ones left
    out), the value's bytes as they are (escapes kept).  Stops at the end of the root node, or at
    anything that is not a property.  Never raises."""
    start = _GAME_START.search(data)
    if start is None:
        return
    pos = start.end()
    ident = b""
    while True:
        m = _ROOT_TOKEN.match(data, pos)
        if m is None or m.group(3) is not None:
            return
        pos = m.end()
        if m.group(2) is not None:
            ident = m.group(2).translate(None, b"abcdefghijklmnopqrstuvwxyz")
        elif ident:
            yield ident.decode("ascii"), m.group(1)


def declared_charset(data: bytes) -> str | None:
    """Return the raw ``CA`` value of the first game's root node, or None if there is none.

    Only the root node is scanned, and no bytes are decoded except the CA value
    itself (as ASCII, with undecodable bytes dropped).  Never raises.
    """
    for ident, value in root_values(data):
        if ident == "CA":
            return value.decode("ascii", errors="ignore").strip()
    return None


@lru_cache(maxsize=65536)
def _char_cost(family: str, ch: str) -> float:
    """Return how unlikely the non-ASCII ``ch`` is in real text of ``family``'s language."""
    if family == "gb18030":
        try:
            lead = ch.encode("gb2312")[0]
        except UnicodeEncodeError:
            return 3.0  # GBK/GB18030 extension or private use: rare in real text
        if 0xB0 <= lead <= 0xD7:
            return 0.5  # level-1 (common) hanzi
        return 0.5 if lead in (0xA1, 0xA3) else 1.5
    if family == "euc_kr":
        try:
            encoded = ch.encode("euc_kr")
        except UnicodeEncodeError:
            return 3.0
        if len(encoded) != 2:
            return 3.0  # CP949-only syllable (Python spells it as an 8-byte jamo make-up)
        lead = encoded[0]
        if "\uac00" <= ch <= "\ud7a3":
            return 0.0 if ch in _COMMON_HANGUL else 1.0
        return 0.5 if lead == 0xA1 else 1.5  # punctuation; Hanja and other symbols
    if family == "shift_jis":
        if "\u3040" <= ch <= "\u30ff":
            return 0.0  # hiragana and katakana
        if "\uff61" <= ch <= "\uff9f":
            return 3.0  # half-width katakana: what other encodings' bytes turn into
        try:
            code = int.from_bytes(ch.encode("shift_jis"), "big")
        except UnicodeEncodeError:
            return 3.0  # CP932-only extension
        if 0x889F <= code <= 0x9872 or 0x8140 <= code <= 0x81FF:
            return 0.5  # level-1 kanji, punctuation
        return 1.5
    # ISO-8859-1
    if "\u00c0" <= ch <= "\u00ff" and ch not in "\u00d7\u00f7":
        return 0.5  # accented letters
    return 5.0 if ch < "\u00a0" else 1.5


def _text_cost(text: str, family: str) -> float:
    """Return the summed unlikeliness of the non-ASCII characters of ``text``."""
    return sum(_char_cost(family, ch) for ch in text if ch > "\x7f")


def _decode_strict(data: bytes, codec: str, superset: str | None) -> tuple[str, str] | None:
    """Return (text, codec used) decoding ``data`` with ``codec`` or else ``superset``; None if both
    fail, or are not text encodings (``rot13``, ``base64``, ``zlib_codec``...)."""
    for name in (codec, superset):
        if name is None:
            continue
        try:
            return data.decode(name), name
        except (UnicodeError, LookupError):  # LookupError: "... is not a text encoding"
            continue
    return None


def _still_sgf(text: str, label: str) -> bool:
    """Return whether ``text``, decoded with the codec that its bytes' CA names (``label``), is the
    same SGF: it is valid Unicode without NUL and its root still names ``label``.  A false CA (a
    UTF-8 game saying UTF-16 or cp037) turns the game tree itself into other characters; an escape
    codec (``unicode_escape``, UTF-7) can make NULs or lone surrogates of plain ASCII."""
    if "\0" in text:
        return False
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return declared_charset(encoded) == label


def decode_marked(data: bytes) -> tuple[str, str] | None:
    """Return (text, codec name) for bytes that start with a UTF-16 or UTF-32 byte order mark (the
    mark left out), or None for bytes that do not.  Raises UnicodeDecodeError when the bytes after
    the mark are not that encoding (an odd number of UTF-16 bytes, say)."""
    for mark, codec in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            return data[len(mark) :].decode(codec), codec
    return None


def _mislabelled_utf8(data: bytes, codec: str) -> str | None:
    """Return the text of ``data`` when its CA names the single-byte ``codec`` but the bytes are
    UTF-8 with some non-ASCII text (then the CA is the common mislabel, not the truth), else None."""
    if not codec.startswith(_SINGLE_BYTE_PREFIXES) or data.isascii():
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def guess_decoding(data: bytes) -> tuple[str, str]:
    """Return (text, codec name) for bytes without a usable CA.

    UTF-8 wins whenever it decodes.  Otherwise every fallback codec that decodes
    ``data`` without error is scored on how plausible its non-ASCII characters
    are, and the lowest score wins (ties go to the earlier codec in
    ``FALLBACK_CODECS``).  Never raises: ISO-8859-1 decodes any bytes.
    """
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best: tuple[float, str, str] | None = None
    for codec, superset in FALLBACK_CODECS:
        decoded = _decode_strict(data, codec, superset)
        if decoded is None:
            continue
        cost = _text_cost(decoded[0], codec)
        if best is None or cost < best[0]:
            best = (cost, decoded[0], decoded[1])
    assert best is not None  # ISO-8859-1 always decodes
    return best[1], best[2]


def decode_sgf_bytes(data: bytes) -> tuple[str, str]:
    """Return (text, codec name) for the bytes of an SGF file.

    A UTF-8 byte order mark means UTF-8, and a UTF-16 or UTF-32 one that encoding when the bytes
    decode with it.  Otherwise the root ``CA`` property is
    honoured (GB2312 and GBK are read as their superset GB18030; EUC-KR and
    Shift-JIS fall back to CP949 and CP932 when the strict codec fails), except that bytes which
    are UTF-8 with non-ASCII text are read as UTF-8 when CA names a single-byte charset
    (ISO-8859-1, Windows-1252...: a common mislabel).  When CA
    is missing, names an unknown codec or one that is not a text encoding, does
    not decode the bytes, or decodes them into something that is no longer the
    same SGF (the game tree and its CA gone, a NUL or a lone surrogate made), the
    encoding is guessed by :func:`guess_decoding`.  The codec name returned is
    Python's canonical name of the codec actually used (``"utf-8"``,
    ``"gb18030"``, ``"euc_kr"``, ``"cp949"``, ``"shift_jis"``, ``"cp932"``,
    ``"iso8859-1"``...).  Never raises.
    """
    if data.startswith(codecs.BOM_UTF8):
        try:
            return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            data = data[len(codecs.BOM_UTF8) :]
    try:
        marked = decode_marked(data)
    except UnicodeDecodeError:
        marked = None
    if marked is not None:
        return marked
    label = declared_charset(data)
    codec = _codec_name(label) if label else None
    if codec is not None:
        utf8 = _mislabelled_utf8(data, codec)
        if utf8 is not None:
            return utf8, "utf-8"
        decoded = _decode_strict(data, *_CA_CODECS.get(codec, (codec, None)))
        if decoded is not None and _still_sgf(decoded[0], label):
            return decoded
    return guess_decoding(data)
