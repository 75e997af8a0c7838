"""Model backends, one module each: what answers when a seat is played by `gameeval/...`.

- registry.py: the inspect model API "gameeval" (entry point `gameeval`), dispatching the names below
- local_weights.py: which GGUF file `gameeval/local[/WHICH]` runs, its identity and chat template
- local_server.py: the embedded llama.cpp (xllamacpp) server for that file, shared per process
- local_provider.py: `gameeval/local`, inspect's OpenAI-compatible provider pointed at that server
- scripted_provider.py: `gameeval/scripted[/STRENGTH]`, the games' scripted players behind inspect

The `gameeval serve-local` command that serves the embedded model is cli/serve_local.py.
"""
