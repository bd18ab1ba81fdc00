"""GitHub's published contract (REST, webhooks, GraphQL) as the referee of the fake GitHub."""
