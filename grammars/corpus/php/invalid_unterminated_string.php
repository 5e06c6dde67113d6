<?php
$name = "never closed;
echo $name;
