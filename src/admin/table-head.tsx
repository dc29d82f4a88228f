/** @jsxImportSource hono/jsx */
/** A table's header row of column names, as every console table has one. */
import type { FC } from "hono/jsx";

export const TableHead: FC<{ columns: readonly string[] }> = ({ columns }) => (
  <thead>
    <tr>
      {columns.map((column) => (
        <th scope="col">{column}</th>
      ))}
    </tr>
  </thead>
);
