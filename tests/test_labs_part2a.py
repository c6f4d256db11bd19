

def test_the_granularity_setter_falls_through_to_a_method_that_works(monkeypatch):
    calls = []

    def broken(value):
        calls.append(("broken", value))
        raise RuntimeError("no such library")

    def works(value):
        calls.append(("works", value))
        return 32 if value is None else value

    monkeypatch.setattr(l2fetch, "METHODS", (("broken", broken), ("works", works)))
    got = l2fetch.set_granularity(32)
    assert got["method"] == "works" and got["readback_bytes"] == 32
    assert got["requested_bytes"] == 32 and "broken" in got["errors"]
    assert calls == [("broken", 32), ("works", 32)]
    monkeypatch.setattr(l2fetch, "METHODS", (("broken", broken),))
    with pytest.raises(RuntimeError, match="no such library"):
        l2fetch.get_granularity()
