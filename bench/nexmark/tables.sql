-- The result tables of the Nexmark jobs in queries/, made with `floe sql`
-- in a fresh warehouse before each run (bench/nexmark_bench.py runs the
-- statement of the query at hand). Jobs insert by position.
CREATE TABLE nexmark.q0 (auction bigint, bidder bigint, price bigint, channel varchar, url varchar, datetime timestamp(6), extra varchar);
CREATE TABLE nexmark.q1 (auction bigint, bidder bigint, price decimal(23, 3), datetime timestamp(6), extra varchar);
CREATE TABLE nexmark.q2 (auction bigint, price bigint);
CREATE TABLE nexmark.q5 (auction bigint, window_start timestamp(6), window_end timestamp(6), num bigint);
CREATE TABLE nexmark.q7 (window_start timestamp(6), window_end timestamp(6), maxprice bigint);
