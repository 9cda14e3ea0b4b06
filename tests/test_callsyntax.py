from __future__ import annotations

import pytest

from sttui.core.callsyntax import CallSyntaxError, complete, format_call, parse_call


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("get_vehicle_status(vehicle_id=TRK-7)", ("get_vehicle_status", {"vehicle_id": "TRK-7"})),
        ("list_vehicles()", ("list_vehicles", {})),
        ("list_vehicles", ("list_vehicles", {})),
        (
            'create_shipment(goods=insulin, quantity=500, origin="HUB-NORTH", deadline="2024-08-15T10:00:00")',
            (
                "create_shipment",
                {"goods": "insulin", "quantity": 500, "origin": "HUB-NORTH", "deadline": "2024-08-15T10:00:00"},
            ),
        ),
        (
            'f(a=1.5, b=true, c=null, d=[1, "x"], e={"k": [1]})',
            ("f", {"a": 1.5, "b": True, "c": None, "d": [1, "x"], "e": {"k": [1]}}),
        ),
        ("f(note='it''s', other=\"a, b)\")", None),
        ("  f ( a = 'two words' , b = -3 ) ", ("f", {"a": "two words", "b": -3})),
    ],
)
def test_parse(text, expected):
    if expected is None:
        with pytest.raises(CallSyntaxError):
            parse_call(text)
    else:
        assert parse_call(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(x=1)", "expected a tool name"),
        ("f x=1", "expected '(' after f"),
        ("f(x 1)", "expected '=' after x"),
        ("f(x=1", "missing ')' at the end"),
        ("f(x=1, x=2)", "x is given twice"),
        ("f(x='open)", "unterminated text"),
        ("f(x=[1, 2)", "unclosed '['"),
        ("f(x=1) g()", "make one call per turn"),
    ],
)
def test_errors_say_what_and_where(text, message):
    with pytest.raises(CallSyntaxError) as info:
        parse_call(text)
    if message:
        assert message in str(info.value) and "at character" in str(info.value)


def test_format_round_trips():
    args = {"a": "TRK-7", "b": "two words", "c": 5, "d": "5", "e": [1, {"x": None}], "f": "true", "g": "a,b"}
    assert parse_call(format_call("tool", args)) == ("tool", args)


def test_completion_of_tools_and_parameters():
    tools = {"get_vehicle_status": ["vehicle_id"], "get_route": ["origin", "destination"], "list_vehicles": []}
    assert complete("get_v", tools) == "get_vehicle_status("
    assert complete("get_r", tools) == "get_route("
    assert complete("get_route(", tools) == "get_route(origin="
    assert complete("get_route(origin=A, d", tools) == "get_route(origin=A, destination="
    assert complete("get_route(origin=A, ", tools) == "get_route(origin=A, destination="
    assert complete("nope(", tools) is None and complete("zz", tools) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rebook(from_flights=[BA576])", {"from_flights": ["BA576"]}),
        ("rebook(from_flights=[BA576, KL641], to_flights=[])", {"from_flights": ["BA576", "KL641"], "to_flights": []}),
        ('f(a=[TRK-7, "two words", 3, true, null])', {"a": ["TRK-7", "two words", 3, True, None]}),
        ("f(a=[[A, B], [C]], b={seat: 12A, count: 2})", {"a": [["A", "B"], ["C"]], "b": {"seat": "12A", "count": 2}}),
        ("f(a=['x, y', z])", {"a": ["x, y", "z"]}),
    ],
)
def test_bare_words_inside_lists_and_objects(text, expected):
    assert parse_call(text)[1] == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [("f(x=[a,,b])", "expected a value"), ("f(x={a})", "expected ':' after a key"), ("f(x=[a b c", "unclosed '['")],
)
def test_bad_lists_say_what_and_where(text, message):
    with pytest.raises(CallSyntaxError) as info:
        parse_call(text)
    assert message in str(info.value) and "at character" in str(info.value)


@pytest.mark.parametrize(
    ("text", "depth"),
    [("[[1]]", 2), ('"[[["', 0), ('{"a": ["x]", {"b": 1}]}', 3), ("O'Brien, [1]", 1), ('"a\\"[[" [1]', 1)],
)
def test_nesting_counts_brackets_outside_json_strings(text, depth):
    from sttui.core.callsyntax import nesting

    assert nesting(text) == depth


def test_a_deeply_nested_value_is_a_syntax_error_not_a_recursion_error():
    from sttui.core.callsyntax import MAX_NESTING, CallSyntaxError, parse_call

    ok = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert parse_call(f"f(x={ok})")[0] == "f"
    for deep in ("[" * 100_000 + "]" * 100_000, "{a: " * 50 + "1" + "}" * 50):
        with pytest.raises(CallSyntaxError, match="lists or objects deep"):
            parse_call(f"f(x={deep})")


def test_a_models_deeply_nested_arguments_are_refused_back_to_it():
    from sttui.controllers.model import _one_call

    deep = "[" * 10_000 + "]" * 10_000
    message = {
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"x": ' + deep + "}"}}]
    }
    refusal = _one_call(message)
    assert isinstance(refusal, str) and "nest 10001 levels deep" in refusal and "Nothing was executed" in refusal
