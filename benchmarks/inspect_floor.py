"""The floor for the inspect front: a bare multi-turn inspect task, no game (issue 62).

    inspect eval benchmarks/inspect_floor.py --model openai-api/loopback/bench -T max_rounds=30 --limit 64

Each sample plays what an Ask-Guess game with both seats over HTTP asks of inspect, without any of
our code: two conversations (a "questioner" and an "answerer", each with its own system prompt),
taking turns, each turn one `generate` on its own growing history (the reply appended as the
assistant's message and a short user message after it), 2 x max_rounds calls a sample, exactly as
many as the game makes against benchmarks/loopback_openai.py. A plain solver calling inspect's
`get_model().generate`, as a user's own multi-turn solver would: no transcript story, no
records, no scorer beyond a constant, and the openai SDK as inspect calls it (our fast path
is not in it; docs/performance.md).

`benchmarks/http_concurrency.py --front inspect` runs it right after the game, with the same
options, against its own loopback server, and reports the inspect front's CPU a call as a ratio to
this one's (`cpu_per_call_over_floor`): inspect's own cost of a call in a multi-turn sample, the
same hour and machine, is the yardstick for what our code adds.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

ROWS = 100  # as many as Ask-Guess's word list: http_concurrency.split_games relies on it
QUESTIONER = ("You are playing a guessing game as the Questioner. Ask one yes/no question per turn to find the "
              "hidden word; say 'Gameover' only when you are sure. Keep every question short.")
ANSWERER = ("You are playing a guessing game as the Answerer. The hidden word is given to you; answer each "
            "question with Yes or No only, never naming the word.")


@solver
def turns(rounds: int):  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        asking: list[Any] = [ChatMessageSystem(content=QUESTIONER), ChatMessageUser(content=state.input_text)]
        answering: list[Any] = [ChatMessageSystem(content=ANSWERER)]
        for _ in range(rounds):
            question = (await model.generate(asking)).completion
            asking.append(ChatMessageAssistant(content=question))
            answering.append(ChatMessageUser(content=f"Question: {question}"))
            answer = (await model.generate(answering)).completion
            answering.append(ChatMessageAssistant(content=answer))
            asking.append(ChatMessageUser(content=f"Answer: {answer} Ask your next question."))
        state.metadata["calls"] = 2 * rounds
        return state

    return solve


@scorer(metrics=[mean()])
def calls_made():  # type: ignore[no-untyped-def]
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=float(state.metadata.get("calls", 0)))

    return score


@task
def inspect_floor(max_rounds: int = 30, **_ignored: Any) -> Task:
    """`_ignored`: the game's other -T options (opponents=self), so one command line serves both."""
    return Task(
        dataset=[Sample(input=f"Start guessing (word {i + 1}).", id=i + 1) for i in range(ROWS)],
        solver=turns(int(max_rounds)),
        scorer=calls_made(),
    )
