"""Reading the app's ``/metrics`` in tests (as an operator's scraper on loopback would)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

LOOPBACK = ("127.0.0.1", 50000)


def metrics_text(app: FastAPI) -> str:
    r = TestClient(app, client=LOOPBACK).get("/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=")
    return r.text


def sample(body: str, name: str, **labels: str) -> float:
    """The value of one sample (0 when absent)."""
    for family in text_string_to_metric_families(body):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    return 0.0
