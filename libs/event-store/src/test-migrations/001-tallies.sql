-- The read model of the connection-budget spec (connection-budget.int.spec.ts).
CREATE TABLE IF NOT EXISTS tallies (id text PRIMARY KEY, count integer NOT NULL);
