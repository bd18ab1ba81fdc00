"""Pull-request pipeline: linked issues, gold/test split, repository context, votes."""
