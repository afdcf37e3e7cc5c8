-- q0 on generated bids: the datagen connector instead of Kafka and JSON, so
-- that the difference to q0 is the cost of reading and decoding messages.
-- The driver sets number-of-rows; rows-per-second is far above what either
-- engine reaches, so the source never waits.
CREATE TEMPORARY TABLE bid (
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,
  channel STRING,
  url STRING,
  `dateTime` TIMESTAMP(3),
  extra STRING
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '1000000',
  'rows-per-second' = '1000000000',
  'fields.auction.min' = '1000',
  'fields.auction.max' = '101000',
  'fields.bidder.min' = '1000',
  'fields.bidder.max' = '101000',
  'fields.price.min' = '100',
  'fields.price.max' = '100000000',
  'fields.channel.length' = '8',
  'fields.url.length' = '48',
  'fields.dateTime.max-past' = '60000',
  'fields.extra.length' = '72'
);
INSERT INTO nexmark.q0
SELECT auction, bidder, price, channel, url, `dateTime`, extra FROM bid;
