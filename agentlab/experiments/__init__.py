"""The experiments the chapter-3 notebooks run, as plain functions the tests run too."""
