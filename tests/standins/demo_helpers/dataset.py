"""Stand-in for ``demo_helpers.dataset``: a ten-sentence "sst" test set, encoded as
``LanguageDataset`` encodes SST (token ids zero-padded to the length, a boolean
attention mask, each input a batch of one; labels 0/1)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch

SST = [("a good film , and a great fun one", 1), ("boring and bad", 0),
       ("the movie is great", 1), ("an awful , boring movie", 0), ("fun", 1),
       ("the film was bad", 0), ("good good good", 1), ("awful", 0),
       ("a great movie", 1), ("the film is boring", 0)]


def create_dataset(name: str, tokenizer=None, max_seq_length=None, feature_extractor=None,
                   input_names=None) -> SimpleNamespace:
    """The stand-in SST test set (``name`` must be "sst")."""
    if name != "sst":
        raise ValueError("Unknown dataset: " + name)
    x = []
    for text, _ in SST:
        ids = tokenizer.encode(text, add_special_tokens=True)
        ids = np.pad(np.array(ids), (0, max_seq_length - len(ids)), constant_values=0)
        x.append({"input_ids": torch.from_numpy(ids).unsqueeze(0),
                  "attention_mask": torch.from_numpy(ids != 0).unsqueeze(0)})
    return SimpleNamespace(name=name, x=x, y=np.array([label for _, label in SST]))
