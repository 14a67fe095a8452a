"""The figures a user reads off what GPU runs leave on disk (tests/fixtures/real/ondisk):
TensorBoard event files, trainer_state.json, trainer_log.jsonl, Lightning's metrics.csv,
MLPerf :::MLLOG logs. Written down from each file's text (for an event file, from the
Trainer's own trainer_state.json and all_results.json beside it in its source); a run
directory is one fixture (its files read as one run)."""

from __future__ import annotations

from real_figures import (
    Figure,
    Fixture,
    acc,
    diag,
    loss,
    rate,
    status,
    step,
    total,
    value,
)


def secs(seconds: float) -> Figure:
    """The run's duration (its files' own times or the time they report)."""
    return Figure("duration", seconds)


def listed() -> list[Fixture]:
    return [
        Fixture("ondisk/hf_t5_summarization", "HF output_dir (trainer_state.json + TensorBoard)", [
            step(215337), total(215337), loss(1.7423), value(7.824944157297631e-08, "lr", "lr"),
            value(2.5202980041503906, "grad norm", "grad_norm"), loss(1.8040490566820844),
            rate(15.743), loss(1.6339077), value(41.6324, "rouge1", "rouge1"),
            value(54713.1806, "train runtime", "train_runtime"), status("done"),
            secs(1742884204.944011 - 1742826365.0545628)]),
        Fixture("ondisk/hf_lora_imdb/trainer_state.json", "HF trainer_state.json", [
            step(375), total(375), loss(0.349), loss(0.3891691565513611),
            value(8.533333333333334e-06, "lr", "lr"), value(1.1414326429367065, "grad norm",
                                                            "grad_norm"), status("done")]),
        Fixture("ondisk/hf_tinyllama_checkpoint/trainer_state.json", "HF trainer_state.json", [
            step(2800), total(2808), loss(1.025), loss(1.1219322681427002),
            value(1.1219322681427002, "best metric", "best_metric"),
            acc(0.7508529225795264), value(1.3040663405394782e-09, "lr", "lr"),
            status("ended")]),
        Fixture("ondisk/llamafactory_sft_start/trainer_log.jsonl",
                "LLaMA-Factory trainer_log.jsonl", [
            step(200), total(6566), loss(0.6348), value(9.977352721301929e-06, "lr", "lr"),
            secs(50 * 60 + 13), status("ended")]),
        Fixture("ondisk/llamafactory_progress_only/trainer_log.jsonl",
                "LLaMA-Factory trainer_log.jsonl", [step(510), total(512), secs(11 * 60 + 8),
                                                    status("ended")]),
        Fixture("ondisk/lightning_glitch/metrics.csv", "Lightning metrics.csv", [
            step(137), loss(0.19502906501293182), loss(0.14366206526756287), status("ended")]),
        Fixture("ondisk/lightning_mnist_epoch/metrics.csv", "Lightning metrics.csv", [
            step(11), acc(0.53125), loss(1.4025089740753174), status("ended")]),
        Fixture("ondisk/mlperf_dlrm_asus_result_1.txt", "MLPerf :::MLLOG", [
            acc(0.8029922246932983), value(4195197692, "train samples", "train_samples"),
            value(0.7498978502418643, "epoch", "epoch_num"), rate(14788774.206692437),
            secs(212.733), status("done")]),
        Fixture("ondisk/mlperf_bert_lambda_aborted.log", "MLPerf :::MLLOG", [
            acc(0.6973460912704468), value(799502, "train samples", "train_samples"),
            rate(12792.219630021962), diag("mlperf_aborted"), status("failed")]),
    ]
