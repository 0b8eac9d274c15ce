import { Anchor, Stack, Text } from "@mantine/core";
import { useI18n } from "../app/i18n";
import { Link, usePath } from "../app/router";

// Names where people expect names (issue 32): an order by its number,
// linked to its page; a delivery address's places by the catalog's names;
// a person by name, the id only where copying one helps. Text a person
// typed is isolated (<bdi>), so it reads in its own direction inside either
// language.

/** The area a path is in: order pages are the area's own. */
export function useArea(): "admin" | "store" {
  return usePath().startsWith("/store") ? "store" : "admin";
}

/** The page of an order in an area. */
export const orderPath = (area: "admin" | "store", id: string) => `/${area}/orders/${id}`;

/** A short, readable order number: the order's number, or its id's last six characters. */
export const numberOf = (o: { _id: string; number?: string }) => `#${o.number || o._id.slice(-6).toUpperCase()}`;

/** The order's number, linked to its page. */
export function OrderNumber({ order, fw = 600 }: { order: { _id: string; number?: string }; fw?: number }) {
  const area = useArea();
  return (
    <Anchor component={Link} to={orderPath(area, order._id)} fw={fw} dir="ltr" title={order._id} data-testid="order-number" data-order-link={order._id}>
      {numberOf(order)}
    </Anchor>
  );
}

export interface AddressNames {
  city: string;
  area: string;
  cityName?: string;
  cityNameArabic?: string;
  areaName?: string;
}

/** The address's area and city by name (the city in Arabic where it has an Arabic name), or as the payment gave them. */
export function usePlace(a: AddressNames): { area: string; city: string; separator: string } {
  const { lang } = useI18n();
  const city = lang === "ar" && a.cityNameArabic ? a.cityNameArabic : a.cityName || a.city;
  const area = a.areaName || a.area;
  return { area, city, separator: lang === "ar" ? "، " : ", " };
}

/**
 * The delivery place, "area, city": each name isolated on its own (one
 * <bdi> around both would order an Arabic area and a Latin city as one
 * run, the comma between them misplaced).
 */
export function Place({ address, size = "sm" }: { address: AddressNames; size?: string }) {
  const { area, city, separator } = usePlace(address);
  return (
    <Text size={size} data-testid="order-place">
      <bdi>{area}</bdi>
      {separator}
      <bdi>{city}</bdi>
    </Text>
  );
}

/** A person by name, isolated; without a name, the id (left to right, copyable). */
export function Person({ name, id, size = "sm" }: { name?: string; id: string; size?: string }) {
  if (name) {
    return (
      <Text size={size} title={id} data-testid="person">
        <bdi>{name}</bdi>
      </Text>
    );
  }
  return (
    <Text size={size} ff="monospace" dir="ltr" data-testid="person">
      {id}
    </Text>
  );
}

/** A payout's short form, as the search finds it: its id's last six characters. */
export const payoutNumber = (id: string) => `#${id.slice(-6).toUpperCase()}`;

/**
 * Who acted (an administrator, a store's owner) by the name their token
 * stated then, isolated, with the id as secondary text to copy; records
 * from before names were kept (docs/adr/0168) show the id alone.
 */
export function Actor({ id, name, inline = false }: { id: string; name?: string | null; inline?: boolean }) {
  const idText = (
    <Text span={inline} size="xs" c="dimmed" ff="monospace" dir="ltr" data-testid="actor-id">
      {id}
    </Text>
  );
  if (!name) return idText;
  if (inline) {
    return (
      <span data-testid="actor" data-actor={id}>
        <bdi data-testid="actor-name">{name}</bdi> {idText}
      </span>
    );
  }
  return (
    <Stack gap={0} data-testid="actor" data-actor={id}>
      <Text size="sm">
        <bdi data-testid="actor-name">{name}</bdi>
      </Text>
      {idText}
    </Stack>
  );
}
