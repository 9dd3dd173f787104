-- The seeded representative objects of each affordance (kari coverage --bench; kari.solver.store), ranked.
CREATE TABLE IF NOT EXISTS representatives (affordance VARCHAR, object VARCHAR, rank INTEGER, seed INTEGER);
