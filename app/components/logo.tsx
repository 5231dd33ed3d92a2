export function Logo({ inverted = false }: { inverted?: boolean }) {
  return (
    <span className="flex items-center gap-2 font-serif text-xl font-bold tracking-tight">
      <span
        aria-hidden="true"
        className={`grid h-9 w-9 place-items-center rounded-md text-lg ${inverted ? "bg-white text-brand" : "bg-brand text-white"}`}
      >
        N
      </span>
      <span className={inverted ? "text-white" : "text-brand"}>
        Novalex <span className="hidden font-normal min-[400px]:inline">Editore</span>
      </span>
    </span>
  );
}
