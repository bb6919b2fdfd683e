"""The `atlas` command as an author or a script runs it."""

import json
import sys
from pathlib import Path

import networkx as nx
import pytest

from conftest import REPO, run

ATLAS = str(Path(sys.executable).parent / "atlas")


def test_check_is_clean_on_the_real_knowledge_base():
    r = run([ATLAS, "check"], cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok:")


def test_check_on_a_broken_copy_lists_every_error_and_exits_2(kb):
    entry = kb / "glossary/terms/kv-cache.yaml"
    lines = entry.read_text().splitlines()
    title = next(i for i, l in enumerate(lines) if l.startswith("title:"))
    lines[title] = "titel: KV cache"
    entry.write_text("\n".join(lines) + "\n")
    (kb / "glossary/terms/empty.yaml").write_text("")
    r = run([ATLAS, "--root", str(kb), "check"], cwd=kb)
    assert r.returncode == 2
    assert f"glossary/terms/kv-cache.yaml:{title + 1}:1: unknown key 'titel' — did you mean 'title'?" in r.stderr
    assert "glossary/terms/empty.yaml:1:1: file is empty" in r.stderr
    r = run([ATLAS, "--root", str(kb), "check", "--json"], cwd=kb)
    assert r.returncode == 2
    report = json.loads(r.stdout)
    assert report["ok"] is False
    assert {"path": "glossary/terms/kv-cache.yaml", "line": title + 1, "col": 1, "severity": "error",
            "message": "unknown key 'titel' — did you mean 'title'?"} in report["errors"]
    assert not (kb / "site").exists()


def test_define_finds_an_entry_by_alias_and_suggests_near_misses():
    r = run([ATLAS, "define", "key-value cache"], cwd=REPO)
    assert r.returncode == 0 and r.stdout.startswith("KV cache")
    r = run([ATLAS, "define", "KV Cache", "--json"], cwd=REPO)
    assert json.loads(r.stdout)["url"] == "/glossary/kv-cache/"
    r = run([ATLAS, "define", "kv cahce"], cwd=REPO)
    assert r.returncode == 1
    assert "did you mean 'KV cache'" in r.stderr


def test_usage_errors_exit_2():
    assert run([ATLAS, "no-such-command"], cwd=REPO).returncode == 2
    assert run([ATLAS, "graph", "export", "--format", "pdf"], cwd=REPO).returncode == 2


def test_outside_the_repository_it_says_where_it_looked_and_how_to_name_one(tmp_path):
    """Issue 48: run in a folder with no knowledge base, atlas says which folders it searched and
    that --root names one, instead of listing 'required file is missing' errors; exit 2."""
    away = run([ATLAS, "check"], cwd=tmp_path)
    assert away.returncode == 2 and "required file is missing" not in away.stderr
    assert str(tmp_path.resolve()) in away.stderr and "every folder above it" in away.stderr and "--root" in away.stderr
    named = run([ATLAS, "--root", str(tmp_path), "list"], cwd=tmp_path)
    assert named.returncode == 2 and f"in {tmp_path.resolve()}." in named.stderr
    assert run([ATLAS, "--root", str(REPO), "check"], cwd=tmp_path).returncode == 0  # --root finds it from anywhere


def test_graph_export_round_trips_through_networkx(tmp_path):
    out = tmp_path / "g.json"
    assert run([ATLAS, "graph", "export", "--format", "json", "-o", str(out)], cwd=REPO).returncode == 0
    g = nx.node_link_graph(json.loads(out.read_text()), edges="edges")
    assert "kv-cache" in g and g.nodes["kv-cache"]["title"] == "KV cache"
    assert all("relation" in d for _, _, d in g.edges(data=True))
    gml = tmp_path / "g.graphml"
    assert run([ATLAS, "graph", "export", "--format", "graphml", "-o", str(gml)], cwd=REPO).returncode == 0
    h = nx.read_graphml(gml)
    assert h.number_of_nodes() == g.number_of_nodes() and h.number_of_edges() == g.number_of_edges()


def test_orphans_fail_check_unless_allowed_with_a_reason(tmp_path):
    import minikb

    root = minikb.write(tmp_path / "repo")
    (root / "glossary/terms/lonely.yaml").write_text(
        "title: Lonely\ncategory: runtime\nshort: An entry with no relation that nothing links to at all.\n"
        "body: Nothing here.\nsources: [src-a]\n")
    r = run([ATLAS, "--root", str(root), "check"], cwd=root)
    assert r.returncode == 2
    assert "glossary/terms/lonely.yaml:1:1: 'lonely' has no relation and nothing links to it" in r.stderr
    (root / "graph/allowed.yaml").write_text("orphans:\n  lonely: kept as an example of an orphan\n")
    r = run([ATLAS, "--root", str(root), "check"], cwd=root)
    assert r.returncode == 0, r.stderr


def test_terms_used_but_not_defined_fail_check_unless_allowed(tmp_path):
    import minikb

    root = minikb.write(tmp_path / "repo")
    (root / "graph/allowed.yaml").write_text("orphans: {}\n")
    import yaml

    for name in ("decode", "kv-cache", "engine-x"):
        path = next(root.glob(f"glossary/*/{name}.yaml"))
        data = yaml.safe_load(path.read_text())
        data["body"] = "Transfers go through QXLink first.\n\n" + data["body"]
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    r = run([ATLAS, "--root", str(root), "check"], cwd=root)
    assert r.returncode == 2
    line = [x for x in r.stderr.splitlines() if "'QXLink'" in x]
    assert len(line) == 1 and "is used by 3 entries" in line[0] and "no entry defines it" in line[0]
    place = line[0].split(": ")[0]
    path, lineno, col = place.rsplit(":", 2)
    assert "QXLink" in (root / path).read_text().splitlines()[int(lineno) - 1][int(col) - 1:]
    # The build finds it in the same reading of the bodies that finds their mentions, and
    # stops with the same finding at the same place, before anything is written.
    from generator.kb.findings import AtlasError
    from generator.pipeline import build

    try:
        build(root)
    except AtlasError as exc:
        assert [x for x in exc.report().splitlines() if "'QXLink'" in x] == line
    else:
        raise AssertionError("the build went on with an undefined term")
    # Defining it (an alias is enough) clears the error ...
    fp16 = root / "glossary/terms/fp16.yaml"
    data = yaml.safe_load(fp16.read_text())
    fp16.write_text(yaml.safe_dump({**data, "aliases": [*data.get("aliases", []), "QXLink"]}, sort_keys=False))
    r = run([ATLAS, "--root", str(root), "check"], cwd=root)
    assert r.returncode == 0, r.stderr
    fp16.write_text(yaml.safe_dump(data, sort_keys=False))
    # ... and so does listing it with a reason; a listed word nobody uses is reported as stale.
    (root / "graph/allowed.yaml").write_text("orphans: {}\nundefined:\n  Gone: no longer used\n  QXLink: accepted\n")
    r = run([ATLAS, "--root", str(root), "check"], cwd=root)
    assert r.returncode == 0 and "'Gone' is listed under undefined" in r.stderr


def test_fit_prices_a_device_of_your_own_per_million_tokens():
    """A reader's own card (48 GB, 864 GB/s, 362 TFLOPS, 350 W) at $1 an hour: Llama 3.1 8B in
    FP16 at 4,096 tokens reads its head, attention and MLP whole and one row of its embedding table:
    (128,256 x 4096 + 32 x (2 x 4096^2 + 2 x 4096 x 1024) + 32 x 3 x 4096 x 14,336 + 4096) x 2 bytes = 15.01e9,
    so it decodes at most 864e9 / (15.01e9 + 536,870,912) = 55.58 tok/s, a million output tokens cost at
    least $1 / (55.58 x 3,600) x 10^6 = $5.00, and a joule buys 0.159 of them."""
    out = run([ATLAS, "fit", "llama-3-1-8b", "--memory", "48", "--bandwidth", "864", "--tflops", "362", "--watts", "350",
               "--price-per-hour", "1", "--json"], cwd=REPO)
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)["devices"]
    assert row["title"] == "Your device" and row["fits"] is True
    read = (128_256 * 4096 + 32 * (2 * 4096**2 + 2 * 4096 * 1024) + 32 * 3 * 4096 * 14_336 + 4096) * 2
    tps = 864e9 / (read + 131072 * 4096)
    assert row["cost"]["output_usd_per_m"] == round(1 / (tps * 3600) * 1e6, 6) and 4.99 < row["cost"]["output_usd_per_m"] < 5.01
    assert abs(row["cost"]["tokens_per_joule"] - tps / 350) < 1e-6
    text = run([ATLAS, "fit", "llama-3-1-8b", "--memory", "48", "--bandwidth", "864", "--price-per-hour", "1"], cwd=REPO).stdout
    assert "Your device" in text and "$5.00" in text


def test_fit_refuses_half_a_device_and_bad_prices():
    half = run([ATLAS, "fit", "llama-3-1-8b", "--memory", "48"], cwd=REPO)
    assert half.returncode == 2 and "needs both --memory GB and --bandwidth GB/s" in half.stderr
    bad = run([ATLAS, "fit", "llama-3-1-8b", "--device", "H100 SXM", "--price-per-hour", "-3"], cwd=REPO)
    assert bad.returncode == 2 and "between 0 and" in bad.stderr
    assert run([ATLAS, "fit", "llama-3-1-8b", "--kwh-price", "nan"], cwd=REPO).returncode == 2


def test_fit_prices_this_projects_measurement_beside_the_ceiling():
    """Where the GPU suite measured the pair, the cost at the measured speed stands beside the
    cost at the ceiling: $2.50 an hour over (measured tok/s x 3,600) per million tokens."""
    args = [ATLAS, "fit", "llama-3-1-8b", "--device", "H100 SXM", "--format", "bf16", "--price-per-hour", "2.5"]
    got = json.loads(run(args + ["--json"], cwd=REPO).stdout)["devices"][0]["measured"]
    assert got and got["comparable"]
    text = run(args, cwd=REPO).stdout
    assert f"at this project's measured {got['tokens_per_s']:,.1f} tok/s" in text
    assert f"${2.5 / (got['tokens_per_s'] * 3600) * 1e6:,.2f} per million output tokens" in text


@pytest.mark.parametrize("typed, model", [
    ("gpt-oss-120b", "gpt-oss-120b"), ("Qwen3-235B-A22B", "qwen3-235b-a22b"), ("qwen3 30b", "qwen3-30b-a3b"),
    ("Llama 4 Scout", "llama-4-scout"), ("gemma3:27b", "gemma-3-27b"), ("Kimi K2", "kimi-k2"),
    ("Mistral Small", "mistral-small-3-1"), ("Phi-4", "phi-4"), ("DeepSeek R1", "deepseek-r1"), ("GLM 4.5", "glm-4-5")])
def test_this_years_models_are_found_by_the_names_people_type(typed, model):
    """Issue 34: a reader arrives with a model's usual name (the issue's list, Ollama tags too)."""
    out = run([ATLAS, "define", typed, "--json"], cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["id"] == model


def test_fit_sizes_a_format_only_where_its_software_runs():
    """Issue 34 item 6: EXL3 runs in ExLlamaV3, on CUDA only (its term's `runs_on`, sourced to
    the ExLlamaV3 README), so `atlas fit` sizes it on NVIDIA devices only and says how many it
    left out; asked for an Apple chip it refuses with the reason (exit 2). A format without
    `runs_on` (Q4_K_M, llama.cpp's) is sized on Apple, AMD and NVIDIA alike."""
    exl3 = json.loads(run([ATLAS, "fit", "llama-3-1-8b", "--format", "3.75 bpw", "--json"], cwd=REPO).stdout)
    ids = [d["device"] for d in exl3["devices"]]
    assert exl3["runs_on"] == ["cuda"] and "nvidia-rtx-4090" in ids
    assert not [i for i in ids if i.startswith(("apple-", "amd-", "google-", "intel-"))]
    assert "apple-m4-max" in exl3["left_out"] and "amd-instinct-mi300x" in exl3["left_out"]
    text = run([ATLAS, "fit", "llama-3-1-8b", "--format", "3.75 bpw"], cwd=REPO).stdout
    assert f"runs on NVIDIA (CUDA): {len(exl3['left_out'])} devices that do not are left out" in text
    mac = run([ATLAS, "fit", "llama-3-1-8b", "--format", "3.75 bpw", "--device", "M4 Max"], cwd=REPO)
    assert mac.returncode == 2 and "not on Apple M4 Max" in mac.stderr and "pick a format it runs" in mac.stderr
    gguf = json.loads(run([ATLAS, "fit", "llama-3-1-8b", "--format", "q4_k_m", "--json"], cwd=REPO).stdout)
    assert gguf["runs_on"] is None and gguf["left_out"] == []
    assert {"apple-m4-max", "amd-instinct-mi300x", "nvidia-rtx-4090"} <= {d["device"] for d in gguf["devices"]}


def test_a_mac_that_does_not_fit_is_measured_against_what_its_gpu_may_use():
    """A 64 GB M1 Max lets its GPU use 48 GB by default (its entry's reading; 48 GiB, 51.5 GB): a
    70B model at Q4_K_M with a 32K context needing 58.6 GB does not fit, and the reason names the
    48 GiB, not the 64."""
    text = run([ATLAS, "fit", "llama-3-3-70b", "--format", "q4_k_m", "--context", "32768", "--device", "M1 Max"], cwd=REPO).stdout
    assert "more than the 48 GiB (51.5 GB) its GPU may use by default" in text and "more than its 64" not in text


def test_fit_lists_devices_by_group_and_filters_one_group():
    """Issue 35 item 6 in the terminal: atlas fit lists devices grouped as the calculator
    groups them (data centre first, edge last), each group under its name, and --where keeps
    one group, as the calculator's filter does; with named devices it refuses (exit 2)."""
    from generator.render.labels import SEGMENTS

    every = json.loads(run([ATLAS, "fit", "qwen3-8b", "--format", "q4_k_m", "--json"], cwd=REPO).stdout)["devices"]
    order = [SEGMENTS.index(d["segment"]) for d in every]
    assert order == sorted(order) and set(order) == set(range(len(SEGMENTS)))
    consumer = json.loads(run([ATLAS, "fit", "qwen3-8b", "--format", "q4_k_m", "--where", "consumer", "--json"], cwd=REPO).stdout)
    ids = {d["device"] for d in consumer["devices"]}
    assert consumer["where"] == "consumer" and {d["segment"] for d in consumer["devices"]} == {"consumer"}
    assert "nvidia-rtx-3060-12gb" in ids and "nvidia-h100-sxm" not in ids
    assert ids == {d["device"] for d in every if d["segment"] == "consumer"}
    text = run([ATLAS, "fit", "qwen3-8b", "--format", "q4_k_m"], cwd=REPO).stdout
    assert text.index("  Data centre:") < text.index("  Consumer GPU:") < text.index("  Edge:")
    both = run([ATLAS, "fit", "qwen3-8b", "--where", "edge", "--device", "L4"], cwd=REPO)
    assert both.returncode == 2 and "--where" in both.stderr


@pytest.mark.parametrize("name, bits", [("f16", 16), ("F32", 32), ("BF16", 16), ("Q8_0", 8.5)])
def test_fit_takes_llama_cpp_s_own_type_names(name, bits):
    """Issue 48: GGUF's type names (llama.cpp prints F16, BF16, F32, Q8_0) resolve as formats."""
    got = json.loads(run([ATLAS, "fit", "llama-3-1-8b", "--format", name, "--device", "RTX 4090", "--json"], cwd=REPO).stdout)
    assert got["devices"][0]["bits"] == pytest.approx(bits, abs=0.01)
