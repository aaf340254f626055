"""gnomon_executor: a gnomon executor in Python (docs/executor-protocol.md).

    from gnomon_executor import Executor, Options
    ex = Executor(Options.from_env())
    ex.add_handler("invoice", lambda ctx: ctx.log("invoicing " + ctx.params))
    ex.start(); ex.run()
"""
from .executor import Executor
from .options import Options
from .runs import Context

__all__ = ["Executor", "Options", "Context"]
