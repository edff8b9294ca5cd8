-- Run once by the postgres image at first start (docker-compose.yml).
-- The sidecar's role: may log in and replicate, reads the followed tables.
CREATE ROLE sidecar WITH LOGIN REPLICATION PASSWORD 'sidecar';

CREATE TABLE public.accounts (
    id      bigint PRIMARY KEY,
    owner   text NOT NULL,
    balance numeric(12, 2) NOT NULL DEFAULT 0
);
INSERT INTO public.accounts
SELECT g, 'owner-' || g, (g * 7 % 1000)::numeric / 10
FROM generate_series(1, 1000) AS g;

-- The publication is created by the tables' owner; the sidecar only reads.
CREATE PUBLICATION sidecar FOR TABLE public.accounts;
GRANT SELECT ON public.accounts TO sidecar;
