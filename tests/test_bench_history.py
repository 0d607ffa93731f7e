"""The nightly benchmark history flags a regression beyond the recent noise, and not the noise."""

import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import history  # noqa: E402

CASE = "bench: quick build, cold"


def results(peer_s, build_s, date="2027-01-01"):
    """A results file as `python -m benchmarks` writes it, reduced to what the history reads."""
    env = {"date": date, "commit": "abc1234", "load_before": [1.0, 1.0, 1.0]}
    return {"peer": {"environment": env, "result": {"seconds": {"peer notebook": peer_s}}},
            "bench": {"environment": env, "result": {"seconds": {"quick build, cold": build_s}}}}


def noisy_nights(n, ratio=5.0, spread=0.04, seed=0):
    """n nights whose ratio wanders by ±spread (relative) around `ratio`, on runners of any speed."""
    rng = random.Random(seed)
    nights = []
    for _ in range(n):
        peer = rng.uniform(3, 8)  # runners differ: absolute times move, the ratio does not
        nights.append(history.night(results(peer, peer * ratio * (1 + rng.uniform(-spread, spread)))))
    return nights


def test_ratios_divide_by_the_peer():
    assert history.ratios(results(4.0, 20.0)) == {CASE: 5.0}


def test_a_regression_beyond_the_noise_is_flagged():
    found = history.regressions(noisy_nights(10), history.night(results(5.0, 5.0 * 5.0 * 1.5)))
    assert [case for case, *_ in found] == [CASE]


def test_noise_and_a_slower_runner_are_not_flagged():
    past = noisy_nights(10)
    for peer, ratio in ((5.0, 5.15), (9.0, 4.85), (2.0, 5.0)):
        assert history.regressions(past, history.night(results(peer, peer * ratio))) == []


def test_too_few_nights_flag_nothing():
    assert history.regressions(noisy_nights(3), history.night(results(5.0, 100.0)), min_nights=5) == []


def test_cli_appends_and_exits_1_on_a_regression(tmp_path, capsys):
    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps(n) + "\n" for n in noisy_nights(8)))
    tonight = tmp_path / "results.json"
    tonight.write_text(json.dumps(results(5.0, 40.0)))
    assert history.main([str(path), str(tonight), "--run", "https://ci/run/9"]) == 1
    assert "REGRESSION bench: quick build, cold" in capsys.readouterr().out
    nights = history.read(path)
    assert len(nights) == 9 and nights[-1]["run"] == "https://ci/run/9"
    tonight.write_text(json.dumps(results(5.0, 25.0)))
    fresh = tmp_path / "fresh.jsonl"
    assert history.main([str(fresh), str(tonight)]) == 0  # the first night: nothing to compare with
    assert len(history.read(fresh)) == 1
