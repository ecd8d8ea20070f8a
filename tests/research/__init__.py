"""Research tools: deep research, plans, evidence, research_document; content and web search."""
