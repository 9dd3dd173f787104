"""The KARI rule language: AST (ast.py), parsers, printers, static checks and simplification."""
