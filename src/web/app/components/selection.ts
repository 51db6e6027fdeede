/**
 * How a list view marks the row the keys selected (`j`/`k`, D30): a class
 * next to the row's own, and `aria-current`.
 */
export function selectedProps(selected: boolean, className?: string): {
  className?: string;
  "aria-current"?: "true";
} {
  const classes = [className, selected ? "selected" : undefined].filter(Boolean).join(" ");
  return {
    ...(classes !== "" && { className: classes }),
    ...(selected && { "aria-current": "true" as const }),
  };
}
