// Fixture for the must-fail test of scripts/check_doc_paths.py: each line breaks one rule.
// A citation of a file outside the repository (spec/generator.md section 2).
// A tracker word instead of the rule's name (decision 6).
// A repository path that does not exist: src/gen/no_such_file.cpp
