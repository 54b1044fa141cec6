"""Language models: the client (llm), the spec agent, the test-reader agent and the judge."""
