# shellcheck shell=bash
join_by() {
    local IFS="$1"
    shift
    echo "$*"
}

declare -A colors=([red]=1 [green]=2)
for key in "${!colors[@]}"; do
    echo "$key=${colors[$key]}"
done

if [[ -n ${HOME:-} && $# -eq 0 ]]; then
    result=$(join_by , a b c)
    echo "${result//,/ }"
fi

while IFS= read -r line; do
    [[ $line == \#* ]] && continue
    echo "${line%%=*}"
done < /etc/environment
(( total = 3 * 4 ))
