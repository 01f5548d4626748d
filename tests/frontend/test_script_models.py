"""Models as users first write them: a class in the script they run
(``__main__``) and one built by a function, through the plain API."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import torch, torch.nn as nn, tessel

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))

    def make(hidden):
        class Closure(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, hidden)

            def forward(self, x):
                return self.fc(x) * 2.0
        return Closure()

    torch.manual_seed(0)
    for model in (Net(), make(6)):
        result = tessel.compile_and_simulate(model.eval(), (torch.randn(2, 8),),
                                             mapper="heuristic")
        print(type(model).__name__, "PASS" if result.check.passed else "FAIL")
""")


def run_script(tmp_path, text: str) -> list[str]:
    """The lines ``text``, run as a script of its own, prints; asserts it
    exits cleanly."""
    script = tmp_path / "script.py"
    script.write_text(text)
    done = subprocess.run([sys.executable, str(script)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_a_script_defining_its_model_in_main(tmp_path):
    assert run_script(tmp_path, SCRIPT)[:2] == ["Net PASS", "Closure PASS"]
