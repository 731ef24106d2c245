"""The small expressions of sweeps.json ("derive", "when", "skip", axes
given as expressions): Python syntax, but only literals, variables,
arithmetic, comparisons, and/or/not, `a if c else b`, indexing and a few
functions; nothing else can run."""
import ast
import operator

BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
          ast.Pow: operator.pow}
COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
           ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
FUNCTIONS = {"str": str, "int": int, "min": min, "max": max, "len": len,
             "range": lambda *a: list(range(*a))}
STR_METHODS = {"replace", "split", "startswith", "endswith"}


class ExprError(ValueError):
    pass


def evaluate(text, lookup):
    """The value of expression text; lookup(name) gives a variable's value."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise ExprError(f"bad expression '{text}': {e.msg}") from None
    return _eval(tree.body, lookup, text)


def _eval(node, lookup, text):
    ev = lambda n: _eval(n, lookup, text)   # noqa: E731
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return lookup(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [ev(e) for e in node.elts]
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        return BINARY[type(node.op)](ev(node.left), ev(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        v = ev(node.operand)
        return (not v) if isinstance(node.op, ast.Not) else -v
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(ev(v) for v in node.values)
        return any(ev(v) for v in node.values)
    if isinstance(node, ast.Compare):
        left = ev(node.left)
        for op, right in zip(node.ops, node.comparators):
            r = ev(right)
            if not COMPARE[type(op)](left, r):
                return False
            left = r
        return True
    if isinstance(node, ast.IfExp):
        return ev(node.body) if ev(node.test) else ev(node.orelse)
    if isinstance(node, ast.Subscript):
        return ev(node.value)[ev(node.slice)]
    if isinstance(node, ast.Call) and not node.keywords:
        args = [ev(a) for a in node.args]
        f = node.func
        if isinstance(f, ast.Name) and f.id in FUNCTIONS:
            return FUNCTIONS[f.id](*args)
        if isinstance(f, ast.Attribute) and f.attr in STR_METHODS:
            obj = ev(f.value)
            if isinstance(obj, str):
                return getattr(obj, f.attr)(*args)
    raise ExprError(f"not allowed in '{text}': {ast.dump(node)[:60]}")
